//! Whether every number a value serialises is finite (the hardening
//! issue: "every serialised number is finite"). serde_json writes an
//! infinite or NaN float as `null`, indistinguishable from an absent
//! option, so a check on the JSON text cannot see one; this walks the
//! value through serde itself and stops at the first non-finite float,
//! naming where it sits ("devices[0].tiers[1].used").

use serde::ser::{self, Serialize};
use std::fmt;

/// Where the first non-finite float of `value` sits, if it has one.
pub fn non_finite<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let mut walk = Walk { path: Vec::new() };
    match value.serialize(&mut walk) {
        Ok(()) => None,
        Err(e) => Some(e.0),
    }
}

/// The path walked so far.
struct Walk {
    path: Vec<String>,
}

impl Walk {
    fn at(&self) -> String {
        let mut s = String::new();
        for p in &self.path {
            if !p.starts_with('[') && !s.is_empty() {
                s.push('.');
            }
            s.push_str(p);
        }
        s
    }

    fn float(&self, v: f64) -> Result<(), Found> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(Found(format!("{} = {v}", self.at())))
        }
    }

    /// Walks `value` one step down, at `step`.
    fn down<T: Serialize + ?Sized>(&mut self, step: String, value: &T) -> Result<(), Found> {
        self.path.push(step);
        value.serialize(&mut *self)?;
        self.path.pop();
        Ok(())
    }
}

/// A non-finite float and where it was (also serde's error type here).
#[derive(Debug)]
pub struct Found(String);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Found {}

impl ser::Error for Found {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Found(format!("not serialisable: {msg}"))
    }
}

/// Seq, tuple and map elements and struct fields: the index walked next,
/// and whether the compound is an enum variant whose name it put on the
/// path (taken off at its end).
struct Items<'a> {
    walk: &'a mut Walk,
    next: usize,
    variant: bool,
}

impl<'a> Items<'a> {
    fn new(walk: &'a mut Walk) -> Self {
        Items {
            walk,
            next: 0,
            variant: false,
        }
    }

    fn variant(walk: &'a mut Walk, name: &'static str) -> Self {
        walk.path.push(name.to_string());
        Items {
            walk,
            next: 0,
            variant: true,
        }
    }

    fn end(self) -> Result<(), Found> {
        if self.variant {
            self.walk.path.pop();
        }
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        let step = format!("[{}]", self.next);
        self.next += 1;
        self.walk.down(step, value)
    }
}

macro_rules! items {
    ($($trait:ident :: $method:ident),+) => {$(
        impl ser::$trait for Items<'_> {
            type Ok = ();
            type Error = Found;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
                self.element(value)
            }
            fn end(self) -> Result<(), Found> {
                Items::end(self)
            }
        }
    )+};
}
items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Items<'_> {
    type Ok = ();
    type Error = Found;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Found> {
        key.serialize(&mut *self.walk)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        self.element(value)
    }
    fn end(self) -> Result<(), Found> {
        Items::end(self)
    }
}

macro_rules! fields {
    ($($trait:ident),+) => {$(
        impl ser::$trait for Items<'_> {
            type Ok = ();
            type Error = Found;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Found> {
                self.walk.down(key.to_string(), value)
            }
            fn end(self) -> Result<(), Found> {
                Items::end(self)
            }
        }
    )+};
}
fields!(SerializeStruct, SerializeStructVariant);

macro_rules! plain {
    ($($method:ident: $ty:ty),+) => {$(
        fn $method(self, _: $ty) -> Result<(), Found> {
            Ok(())
        }
    )+};
}

impl<'a> ser::Serializer for &'a mut Walk {
    type Ok = ();
    type Error = Found;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Items<'a>;
    type SerializeTupleStruct = Items<'a>;
    type SerializeTupleVariant = Items<'a>;
    type SerializeMap = Items<'a>;
    type SerializeStruct = Items<'a>;
    type SerializeStructVariant = Items<'a>;

    plain!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str
    );

    fn serialize_f32(self, v: f32) -> Result<(), Found> {
        self.float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Found> {
        self.float(v)
    }
    fn serialize_none(self) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Found> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        self.down(variant.to_string(), value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>, Found> {
        Ok(Items::new(self))
    }
    fn serialize_tuple(self, _: usize) -> Result<Items<'a>, Found> {
        Ok(Items::new(self))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Items<'a>, Found> {
        Ok(Items::new(self))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Items<'a>, Found> {
        Ok(Items::variant(self, variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Items<'a>, Found> {
        Ok(Items::new(self))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Items<'a>, Found> {
        Ok(Items::new(self))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Items<'a>, Found> {
        Ok(Items::variant(self, variant))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    struct Inner {
        used: f64,
        label: Option<f32>,
    }

    #[derive(serde::Serialize)]
    enum Shape {
        Tier { inner: Inner },
        Pair(f64, f64),
    }

    #[derive(serde::Serialize)]
    struct Outer {
        devices: Vec<Inner>,
        shape: Shape,
        by_name: BTreeMap<String, f64>,
    }

    fn outer(bad: f64) -> Outer {
        Outer {
            devices: vec![
                Inner {
                    used: 1.0,
                    label: None,
                },
                Inner {
                    used: bad,
                    label: Some(2.0),
                },
            ],
            shape: Shape::Tier {
                inner: Inner {
                    used: 3.0,
                    label: None,
                },
            },
            by_name: BTreeMap::from([("a".to_string(), 1.0)]),
        }
    }

    #[test]
    fn finite_values_pass_and_the_first_infinite_one_is_named() {
        assert_eq!(non_finite(&outer(4.0)), None);
        assert_eq!(
            non_finite(&outer(f64::INFINITY)),
            Some("devices[1].used = inf".to_string())
        );
        assert!(non_finite(&outer(f64::NAN)).is_some_and(|p| p.contains("devices[1].used")));
        let pair = Shape::Pair(1.0, f64::NEG_INFINITY);
        assert_eq!(non_finite(&pair), Some("Pair[1] = -inf".to_string()));
        // A variant's name leaves the path when the variant ends.
        let after = (Shape::Pair(1.0, 2.0), f64::INFINITY);
        assert_eq!(non_finite(&after), Some("[1] = inf".to_string()));
        let map = BTreeMap::from([("x".to_string(), f64::NAN)]);
        assert_eq!(non_finite(&map), Some("[0] = NaN".to_string()));
        // A missing value (serde_json's `null` too) is not a number.
        assert_eq!(non_finite(&Option::<f64>::None), None);
    }
}
