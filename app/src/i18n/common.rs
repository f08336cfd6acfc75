//! Strings of the page frame: header, actions, banners, view names.

use super::{tr, Lang};
use planner_core::workspace::View;

/// Keys of the frame's strings (each names its string).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    Title,
    Tagline,
    Language,
    CopyLink,
    LinkCopied,
    CopyEmbed,
    EmbedCopied,
    LinkProblem,
    DefaultLoaded,
    Dismiss,
    OpenFull,
    Plans,
    Results,
    Loading,
    CopyByHandTitle,
    CopyByHand,
    Close,
    CopyMarkdown,
    MarkdownCopied,
    DownloadSvg,
    EmbedCaption,
}

/// A frame string.
pub fn t(lang: Lang, k: K) -> &'static str {
    match k {
        K::Title => tr(lang, "memwall", "memwall 显存墙规划器"),
        K::Tagline => tr(
            lang,
            "Over the GPU memory wall: software levers and hardware side by side",
            "跨越 GPU 显存墙：软件手段与硬件方案并排比较",
        ),
        K::Language => tr(lang, "中文", "English"),
        K::CopyLink => tr(lang, "Copy link", "复制链接"),
        K::LinkCopied => tr(lang, "Link copied", "链接已复制"),
        K::CopyEmbed => tr(lang, "Copy embed snippet", "复制嵌入代码"),
        K::EmbedCopied => tr(lang, "Embed snippet copied", "嵌入代码已复制"),
        K::LinkProblem => tr(lang, "This link could not be opened", "无法打开此链接"),
        K::DefaultLoaded => tr(
            lang,
            "The default plan is shown instead.",
            "已改为显示默认方案。",
        ),
        K::Dismiss => tr(lang, "Dismiss", "关闭"),
        K::OpenFull => tr(lang, "Open in memwall", "在 memwall 中打开"),
        K::Plans => tr(lang, "Plans", "方案"),
        K::Results => tr(lang, "Results", "结果"),
        K::Loading => tr(lang, "Evaluating…", "正在计算…"),
        K::CopyByHandTitle => tr(lang, "Copy this text", "请复制这段文字"),
        K::CopyByHand => tr(
            lang,
            "This browser does not let the page copy here (the page is not served over HTTPS). The text below is selected: press Ctrl+C (⌘C on a Mac) to copy it.",
            "浏览器不允许此页面直接复制（页面不是通过 HTTPS 打开的）。下面的文字已选中：按 Ctrl+C（Mac 上按 ⌘C）复制。",
        ),
        K::Close => tr(lang, "Close", "关闭"),
        K::CopyMarkdown => tr(lang, "Copy Markdown (image + link)", "复制 Markdown（图片 + 链接）"),
        K::MarkdownCopied => tr(
            lang,
            "Markdown copied: save the SVG next to the page",
            "Markdown 已复制：请把 SVG 文件放在文档旁边",
        ),
        K::DownloadSvg => tr(lang, "Download chart (SVG)", "下载图表（SVG）"),
        K::EmbedCaption => tr(lang, "plans compared", "个方案对比"),
    }
}

/// The name of a result view.
pub fn view(lang: Lang, v: View) -> &'static str {
    match v {
        View::Memory => tr(lang, "Memory", "显存"),
        View::Time => tr(lang, "Time", "时间"),
        View::Frontier => tr(lang, "Cost vs latency", "成本与延迟"),
        View::Sweep => tr(lang, "Sweep", "扫描"),
        View::Compare => tr(lang, "Compare", "对比"),
        View::Tenants => tr(lang, "Tenants", "多租户"),
        View::Reliability => tr(lang, "Reliability", "可靠性"),
        View::Wall => tr(lang, "Wall over time", "显存墙演进"),
    }
}
