//! Shared by the tests that hand the core a bad value: the check that the
//! plan is refused and that the refusal names the field at fault.

use planner_core::diagnostics::Severity;
use planner_core::report::Report;
use planner_core::Verdict;

/// Asserts that `report` is invalid and that one of its errors names
/// `field` (a plan path such as `overheads.cublas_workspace`).
pub fn assert_refused_by_name(report: &Report, field: &str) {
    assert_eq!(
        report.verdict,
        Verdict::Invalid,
        "{field}: {:?}",
        report.diagnostics
    );
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error && d.message.contains(field)),
        "{field}: {:?}",
        report.diagnostics
    );
}
