//! The format reference: every on-disk structure as the schema's binrw attributes define it.
//!
//! [`describe`] (from `twcodec-schema-derive`) sits above each `#[binrw]` structure of this crate
//! and reads the same `#[br]`/`#[bw]`/`#[brw]` tokens binrw compiles. It implements [`Describe`]:
//! a [`Structure`] with the doc comment, byte order, magic and imports, and per field its type,
//! size, position and the condition under which it is present. Sizes come from the types
//! themselves through [`OnDisk`] (implemented here for integers, arrays, `Option` and `Vec`, and
//! by the attribute for every described structure), never from a table written by hand.
//!
//! [`documents`] lists the structures by document (datafile, map items, snapshots, demos,
//! messages);
//! the `twcodec` crate renders them as Markdown (`docs/format/`) and JSON (`twcodec schema`).
//! [`Structure::place`] evaluates a structure over real bytes: which fields a given item has
//! and where, which the corpus test compares with what binrw reads.
//!
//! The JSON form ([`Structure`] through serde) leaves out what is empty, `false` or `None`.
//!
//! Positions of fields after an optional field count it (as map.md lists version extensions
//! one after another); [`Offset::assuming`] names those fields. After a field of variable size,
//! positions are relative to its end ([`Offset::after`]).

use std::collections::HashMap;
use std::fmt;

pub use twcodec_schema_derive::describe;

use crate::map::MapItemKind;
use crate::netobj::SnapObjectKind;

/// A type that has a size on disk.
pub trait OnDisk {
    /// Its size.
    fn size() -> Size;

    /// The name of the described structure it is, or holds (elements of an array, `Vec` or
    /// `Option`), for links.
    fn link() -> Option<&'static str> {
        None
    }

    /// The described structure it is (also through an `Option`), to look inside it.
    fn structure() -> Option<Structure> {
        None
    }
}

/// A structure described by [`describe`].
pub trait Describe: OnDisk {
    /// The structure, with array lengths that are const parameters shown by name.
    fn describe() -> Structure {
        Self::describe_as(true)
    }

    /// The structure; with `symbolic`, arrays whose length is a const parameter (`[i32; N]`)
    /// have the size `N × element` instead of this instance's size.
    #[doc(hidden)]
    fn describe_as(symbolic: bool) -> Structure;
}

/// The size of a field or structure on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Size {
    /// Always this many bytes.
    Fixed {
        /// Bytes.
        bytes: u64,
    },
    /// Fixed-size parts of which some are optional: from `min` to `max` bytes.
    Range {
        /// Bytes without the optional parts.
        min: u64,
        /// Bytes with all of them.
        max: u64,
    },
    /// `count` elements.
    Count {
        /// How many.
        count: Count,
        /// The size of one.
        element: Box<Size>,
    },
    /// Whole elements up to the end of the input.
    Rest {
        /// The size of one.
        element: Box<Size>,
    },
    /// A sequence whose length the layout does not state (a written list).
    Elements {
        /// The size of one.
        element: Box<Size>,
    },
    /// Read or written by a function.
    Custom {
        /// The function, as written.
        function: String,
    },
    /// Depends on conditions or on the variant: see the fields.
    Varies,
}

impl Size {
    /// `bytes` bytes.
    pub const fn fixed(bytes: u64) -> Size {
        Size::Fixed { bytes }
    }

    /// `count` elements of `element` (the element of a sequence type).
    pub fn count(count: Count, element: Size) -> Size {
        let element = match element {
            Size::Elements { element } => element,
            other => Box::new(other),
        };
        Size::Count { count, element }
    }

    /// The rest of the input in elements of `element` (the element of a sequence type).
    pub fn rest(element: Size) -> Size {
        let element = match element {
            Size::Elements { element } => element,
            other => Box::new(other),
        };
        Size::Rest { element }
    }

    /// The bytes, when always the same.
    pub fn bytes(&self) -> Option<u64> {
        match self {
            Size::Fixed { bytes } => Some(*bytes),
            _ => None,
        }
    }

    /// Least and most bytes, when bounded.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        match self {
            Size::Fixed { bytes } => Some((*bytes, *bytes)),
            Size::Range { min, max } => Some((*min, *max)),
            _ => None,
        }
    }

    /// The element size of a sequence.
    pub fn element(&self) -> Option<&Size> {
        match self {
            Size::Count { element, .. } | Size::Rest { element } | Size::Elements { element } => {
                Some(element)
            }
            _ => None,
        }
    }

    /// Whether every size it states (itself or its element) is a multiple of 4.
    fn int_aligned(&self) -> bool {
        match self {
            Size::Fixed { bytes } => bytes % 4 == 0,
            Size::Range { min, max } => min % 4 == 0 && max % 4 == 0,
            Size::Count { element, .. } | Size::Rest { element } | Size::Elements { element } => {
                element.int_aligned()
            }
            Size::Custom { .. } | Size::Varies => true,
        }
    }
}

/// The element count of a field (`count = ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Count {
    /// As written.
    pub text: String,
    /// As far as the reference can evaluate it.
    pub expr: Expr,
}

/// A condition or count expression, as far as the reference understands it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// An earlier field (`version`), a field of one (`header.kind`), or an import.
    Field(Vec<String>),
    /// A constant (`Version::V4`).
    Const(String),
    /// `left op right`: comparisons, `&&`, `||` and arithmetic.
    Binary {
        /// The operator as written.
        op: String,
        /// Its left side.
        left: Box<Expr>,
        /// Its right side.
        right: Box<Expr>,
    },
    /// `!expr`.
    Not(Box<Expr>),
    /// `(expr)`.
    Paren(Box<Expr>),
    /// `field.is_some()`: an earlier optional field is present.
    IsSome(Vec<String>),
    /// `field.is_none()`.
    IsNone(Vec<String>),
    /// `matches!(expr, 2 | 3)` with integer patterns.
    Matches(Box<Expr>, Vec<i64>),
    /// Anything else, as written.
    Other(String),
}

impl Expr {
    /// `left op right`.
    pub fn binary(op: &str, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op: op.to_string(),
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    /// The value in `scope`; `true` is 1, `false` 0.
    pub fn eval(&self, scope: &Scope) -> Result<i64, String> {
        Ok(match self {
            Expr::Int(value) => *value,
            Expr::Bool(value) => i64::from(*value),
            Expr::Field(path) => {
                let key = path.join(".");
                *scope
                    .values
                    .get(&key)
                    .ok_or_else(|| format!("`{key}` has no value here"))?
            }
            Expr::Binary { op, left, right } => {
                let l = left.eval(scope)?;
                // `&&` and `||` do not look at the right side when the left decides.
                match op.as_str() {
                    "&&" if l == 0 => return Ok(0),
                    "||" if l != 0 => return Ok(1),
                    _ => {}
                }
                let r = right.eval(scope)?;
                match op.as_str() {
                    "==" => i64::from(l == r),
                    "!=" => i64::from(l != r),
                    "<" => i64::from(l < r),
                    "<=" => i64::from(l <= r),
                    ">" => i64::from(l > r),
                    ">=" => i64::from(l >= r),
                    "&&" | "||" => i64::from(r != 0),
                    "+" => l.checked_add(r).ok_or("overflow")?,
                    "-" => l.checked_sub(r).ok_or("overflow")?,
                    "*" => l.checked_mul(r).ok_or("overflow")?,
                    "/" => l.checked_div(r).ok_or("division by zero")?,
                    "%" => l.checked_rem(r).ok_or("division by zero")?,
                    other => return Err(format!("unknown operator `{other}`")),
                }
            }
            Expr::Not(inner) => i64::from(inner.eval(scope)? == 0),
            Expr::Paren(inner) => inner.eval(scope)?,
            Expr::IsSome(path) | Expr::IsNone(path) => {
                let key = path.join(".");
                let present = *scope
                    .present
                    .get(&key)
                    .ok_or_else(|| format!("`{key}` is not an earlier field"))?;
                i64::from(present == matches!(self, Expr::IsSome(_)))
            }
            Expr::Matches(value, cases) => i64::from(cases.contains(&value.eval(scope)?)),
            Expr::Const(text) | Expr::Other(text) => {
                return Err(format!("cannot evaluate `{text}`"))
            }
        })
    }
}

/// What an expression can see: the values of earlier integer fields and imports, and which
/// earlier fields are present.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Values by path (`version`, `header.kind`).
    pub values: HashMap<String, i64>,
    /// Presence by field name.
    pub present: HashMap<String, bool>,
}

/// When a field or variant is there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Condition {
    /// Which binrw directive states it.
    pub kind: ConditionKind,
    /// The condition as written.
    pub text: String,
    /// The condition as far as the reference understands it.
    pub expr: Expr,
}

impl Condition {
    /// When the field is present, in words: `version >= 2, if the item holds it`.
    pub fn describe(&self, try_read: bool) -> String {
        let text = self.text.as_str();
        let mut words = match (self.kind, text) {
            (ConditionKind::When, "true") => "if the item holds it".to_string(),
            (ConditionKind::When, _) => format!("`{text}`, if the item holds it"),
            _ => format!("`{text}`"),
        };
        if try_read {
            words.push_str(", if it reads");
        }
        words
    }
}

/// The binrw directive that states a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ConditionKind {
    /// `#[br(if(cond))]`: read when the condition holds.
    If,
    /// `#[br(parse_with = when(cond))]`: read when the condition holds and the input still
    /// holds the whole value; otherwise nothing is consumed (the ints stay for the kept tail).
    When,
    /// `#[br(pre_assert(cond))]` on an enum variant: the variant read when the condition holds.
    PreAssert,
}

/// An argument passed to a field's type (`args { kind: header.kind }`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Arg {
    /// The import it sets (or its position).
    pub name: String,
    /// The value as written.
    pub text: String,
    /// The value as far as the reference understands it.
    pub expr: Expr,
}

/// A value a structure needs from outside (`import { kind: i32 }`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Import {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: String,
}

/// How a type lies on disk: its size and, for links, the structure it is.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Disk {
    /// The type as written (or as the compiler names it, for a function's argument).
    pub type_name: String,
    /// Its size.
    pub size: Size,
    /// The described structure it is or holds.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub link: Option<&'static str>,
    /// The described structure it is, to look inside.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub nested: fn() -> Option<Structure>,
}

/// The on-disk form of `T`, named `type_name`.
pub fn disk<T: OnDisk + ?Sized>(type_name: &str) -> Disk {
    Disk {
        type_name: type_name.to_string(),
        size: T::size(),
        link: T::link(),
        nested: T::structure,
    }
}

/// A value named `type_name` read or written by `function`, of no size the reference knows.
pub fn custom_disk(type_name: &str, function: &str) -> Disk {
    Disk {
        type_name: type_name.to_string(),
        size: Size::Custom {
            function: function.to_string(),
        },
        link: None,
        nested: no_structure,
    }
}

/// The on-disk form of what `map`/`try_map` function `f` takes: what binrw reads before
/// mapping it.
pub fn argument_disk<A: OnDisk, R>(f: impl FnOnce(A) -> R) -> Disk {
    drop(f);
    disk::<A>(&short_type_name(std::any::type_name::<A>()))
}

/// The on-disk form of what a write-side `map` function `f` returns: what binrw writes.
pub fn returned_disk<A, R: OnDisk>(f: impl FnOnce(A) -> R) -> Disk {
    drop(f);
    disk::<R>(&short_type_name(std::any::type_name::<R>()))
}

/// A type name without module paths: `[i32; 4]`, `Option<Point>`.
pub fn short_type_name(name: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit("::").next().unwrap_or_default());
        word.clear();
    };
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// What a `map`/`try_map` reads before mapping, or what a mapped or `repr` enum is read as.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ReadAs {
    /// The type on disk.
    pub disk: Disk,
    /// The function or closure that maps it, as written (`repr` for a `repr` enum).
    pub via: String,
}

/// Where a field starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Offset {
    /// The field of variable size it follows, or `None` from the start of the structure.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub after: Option<String>,
    /// Bytes from there.
    pub bytes: u64,
    /// Earlier optional fields counted in `bytes` (the position when they are present).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub assuming: Vec<String>,
}

/// A field of a structure or variant.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Field {
    /// The name (`0`, `1` for tuple fields; `magic` for a magic).
    pub name: String,
    /// The Rust type.
    pub rust_type: String,
    /// The type on disk: the Rust type, or what a `map` reads.
    pub disk_type: String,
    /// The doc comment.
    pub doc: String,
    /// Where it starts.
    pub offset: Offset,
    /// Its size.
    pub size: Size,
    /// The function or closure that maps the value read (`map`/`try_map`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub read_via: Option<String>,
    /// When it is present; always when `None`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub condition: Option<Condition>,
    /// `try`: absent (and nothing consumed) when it does not read.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_false"))]
    pub try_read: bool,
    /// `temp`: read, but not kept in the struct (written from `written_as`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_false"))]
    pub temp: bool,
    /// `calc`/`try_calc` on write: the value written, as written.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub written_as: Option<String>,
    /// Arguments passed to its type.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub args: Vec<Arg>,
    /// Checks after reading (`assert`), as written.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub asserts: Vec<String>,
    /// Its own byte order, when it differs.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub endian: Option<String>,
    /// The magic bytes, for the magic in front of a structure.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub magic: Option<String>,
    /// The described structure it is or holds.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub structure: Option<&'static str>,
    /// The described structure it is, to look inside.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub nested: fn() -> Option<Structure>,
}

#[cfg(feature = "serde")]
fn is_false(value: &bool) -> bool {
    !value
}

fn no_structure() -> Option<Structure> {
    None
}

impl Field {
    /// A field named `name` of Rust type `rust_type`, lying on disk as `disk`, mapped by
    /// `read_via` when a `map` reads it.
    pub fn new(
        name: &str,
        rust_type: &str,
        doc: &str,
        disk: Disk,
        read_via: Option<String>,
    ) -> Field {
        Field {
            name: name.to_string(),
            rust_type: rust_type.to_string(),
            disk_type: disk.type_name,
            doc: doc.to_string(),
            offset: Offset::default(),
            size: disk.size,
            read_via,
            condition: None,
            try_read: false,
            temp: false,
            written_as: None,
            args: Vec::new(),
            asserts: Vec::new(),
            endian: None,
            magic: None,
            structure: disk.link,
            nested: disk.nested,
        }
    }

    /// The magic `text` (a literal of `bytes` bytes) in front of a structure.
    pub fn magic(text: &str, bytes: u64) -> Field {
        let mut field = Field::new(
            "magic",
            text,
            "",
            Disk {
                type_name: text.to_string(),
                size: Size::fixed(bytes),
                link: None,
                nested: no_structure,
            },
            None,
        );
        field.magic = Some(text.to_string());
        field
    }

    /// Whether it may be absent.
    pub fn optional(&self) -> bool {
        self.condition.is_some() || self.try_read
    }
}

/// A variant of an enum.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Variant {
    /// The name.
    pub name: String,
    /// The doc comment.
    pub doc: String,
    /// The value of a `repr` enum's variant.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub discriminant: Option<String>,
    /// When it is the one read (`pre_assert`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub condition: Option<Condition>,
    /// Its fields.
    pub fields: Vec<Field>,
    /// Its size.
    pub size: Size,
}

impl Variant {
    /// A variant; sizes and positions are set by [`Structure::finish`].
    pub fn new(
        name: &str,
        doc: &str,
        discriminant: Option<String>,
        condition: Option<Condition>,
        fields: Vec<Field>,
    ) -> Variant {
        Variant {
            name: name.to_string(),
            doc: doc.to_string(),
            discriminant,
            condition,
            fields,
            size: Size::Varies,
        }
    }
}

/// What a structure consists of.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "form", rename_all = "snake_case"))]
pub enum Body {
    /// Fields one after another.
    Fields {
        /// The fields.
        fields: Vec<Field>,
    },
    /// One of several variants, each with its condition.
    Variants {
        /// The variants.
        variants: Vec<Variant>,
    },
    /// Read as another type and mapped (`#[br(map = ...)]` on the type).
    Mapped {
        /// What is read.
        read_as: ReadAs,
        /// The values it maps to.
        variants: Vec<Variant>,
    },
    /// A number whose values are the variants (`#[brw(repr = ...)]`).
    Repr {
        /// The number's type.
        read_as: ReadAs,
        /// The variants and their values.
        variants: Vec<Variant>,
    },
}

/// An on-disk structure as its binrw attributes define it.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Structure {
    /// The Rust name with its generic parameters (`I32String<N>`).
    pub name: String,
    /// The Rust name alone, as fields link to it.
    pub ident: String,
    /// The doc comment.
    pub doc: String,
    /// `little` or `big`; inherited from the enclosing structure when `None`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub endian: Option<String>,
    /// Values it needs from outside.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub imports: Vec<Import>,
    /// Checks on the whole structure, as written.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub asserts: Vec<String>,
    /// The magic in front of a mapped or `repr` enum.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub magic: Option<Field>,
    /// Its size.
    pub size: Size,
    /// What it consists of.
    pub body: Body,
}

impl Structure {
    /// A structure; [`Structure::finish`] computes positions and sizes.
    pub fn new(ident: &str, name: &str, doc: &str, body: Body) -> Structure {
        Structure {
            name: name.to_string(),
            ident: ident.to_string(),
            doc: doc.to_string(),
            endian: None,
            imports: Vec::new(),
            asserts: Vec::new(),
            magic: None,
            size: Size::Varies,
            body,
        }
    }

    /// Computes every field's offset and the sizes of variants and the whole.
    pub fn finish(mut self) -> Structure {
        let magic = self
            .magic
            .as_ref()
            .and_then(|m| m.size.bytes())
            .unwrap_or(0);
        self.size = match &mut self.body {
            Body::Fields { fields } => place_fields(fields),
            Body::Variants { variants } => {
                for variant in variants.iter_mut() {
                    variant.size = place_fields(&mut variant.fields);
                }
                let first = variants.first().map(|v| v.size.clone());
                match first {
                    Some(size @ Size::Fixed { .. }) if variants.iter().all(|v| v.size == size) => {
                        size
                    }
                    _ => Size::Varies,
                }
            }
            Body::Mapped { read_as, .. } | Body::Repr { read_as, .. } => {
                match read_as.disk.size.bytes() {
                    Some(bytes) => Size::fixed(bytes + magic),
                    None => read_as.disk.size.clone(),
                }
            }
        };
        self
    }

    /// The fields, for a structure made of fields.
    pub fn fields(&self) -> &[Field] {
        match &self.body {
            Body::Fields { fields } => fields,
            _ => &[],
        }
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields().iter().find(|field| field.name == name)
    }

    /// Whether every position and size is a whole number of ints.
    pub fn int_aligned(&self) -> bool {
        let fields_aligned = |fields: &[Field]| {
            fields
                .iter()
                .all(|f| f.offset.bytes % 4 == 0 && f.size.int_aligned())
        };
        match &self.body {
            Body::Fields { fields } => fields_aligned(fields),
            Body::Variants { variants } => variants.iter().all(|v| fields_aligned(&v.fields)),
            Body::Mapped { read_as, .. } | Body::Repr { read_as, .. } => {
                read_as.disk.size.int_aligned()
            }
        }
    }
}

/// Sets the offsets of `fields` and returns their size together.
fn place_fields(fields: &mut [Field]) -> Size {
    let mut after: Option<String> = None;
    let mut bytes = 0;
    let mut assuming = Vec::new();
    let (mut min, mut max, mut bounded) = (0, 0, true);
    for field in fields.iter_mut() {
        field.offset = Offset {
            after: after.clone(),
            bytes,
            assuming: assuming.clone(),
        };
        let optional = field.optional();
        match field.size.bounds() {
            Some((low, high)) if low == high => {
                bytes += high;
                if optional {
                    assuming.push(field.name.clone());
                }
            }
            _ => {
                after = Some(field.name.clone());
                bytes = 0;
                assuming.clear();
            }
        }
        match field.size.bounds() {
            Some((low, high)) => {
                if !optional {
                    min += low;
                }
                max += high;
            }
            None => bounded = false,
        }
    }
    match (bounded, min == max) {
        (false, _) => Size::Varies,
        (true, true) => Size::fixed(min),
        (true, false) => Size::Range { min, max },
    }
}

macro_rules! fixed_size {
    ($($ty:ty),*) => {$(
        impl OnDisk for $ty {
            fn size() -> Size {
                Size::fixed(std::mem::size_of::<$ty>() as u64)
            }
        }
    )*};
}

fixed_size!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, f32, f64);

impl<T: OnDisk, const N: usize> OnDisk for [T; N] {
    fn size() -> Size {
        match T::size() {
            Size::Fixed { bytes } => Size::fixed(bytes * N as u64),
            element => Size::count(
                Count {
                    text: N.to_string(),
                    expr: Expr::Int(N as i64),
                },
                element,
            ),
        }
    }

    fn link() -> Option<&'static str> {
        T::link()
    }
}

impl<T: OnDisk> OnDisk for Option<T> {
    fn size() -> Size {
        T::size()
    }

    fn link() -> Option<&'static str> {
        T::link()
    }

    fn structure() -> Option<Structure> {
        T::structure()
    }
}

impl<T: OnDisk> OnDisk for Vec<T> {
    fn size() -> Size {
        Size::Elements {
            element: Box::new(T::size()),
        }
    }

    fn link() -> Option<&'static str> {
        T::link()
    }
}

impl<T: OnDisk> OnDisk for &[T] {
    fn size() -> Size {
        Vec::<T>::size()
    }

    fn link() -> Option<&'static str> {
        T::link()
    }
}

impl<A: OnDisk, B: OnDisk> OnDisk for (A, B) {
    fn size() -> Size {
        match (A::size(), B::size()) {
            (Size::Fixed { bytes: a }, Size::Fixed { bytes: b }) => Size::fixed(a + b),
            _ => Size::Varies,
        }
    }
}

impl<T: OnDisk + ?Sized> OnDisk for Box<T> {
    fn size() -> Size {
        T::size()
    }

    fn link() -> Option<&'static str> {
        T::link()
    }

    fn structure() -> Option<Structure> {
        T::structure()
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering helpers: positions and sizes in ints or bytes.

/// How a document counts positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Unit {
    /// Int indices (`[1..2]`), as map.md counts item data.
    Int,
    /// Byte offsets.
    Byte,
}

impl Unit {
    /// The unit a structure of a document in this unit is shown in: ints only when every
    /// position and size is whole ints.
    pub fn for_structure(self, structure: &Structure) -> Unit {
        match self {
            Unit::Int if structure.int_aligned() => Unit::Int,
            _ => Unit::Byte,
        }
    }

    /// Bytes in this unit.
    fn amount(self, bytes: u64) -> u64 {
        match self {
            Unit::Int => bytes / 4,
            Unit::Byte => bytes,
        }
    }

    /// The column heading of positions.
    pub fn position_heading(self) -> &'static str {
        match self {
            Unit::Int => "int",
            Unit::Byte => "offset",
        }
    }

    /// The column heading of sizes.
    pub fn size_heading(self) -> &'static str {
        match self {
            Unit::Int => "ints",
            Unit::Byte => "bytes",
        }
    }

    /// Where a field of size `size` at `offset` lies: `[3]`, `[7..11]`, `[15..]`, `after
    /// data`, `after data + 2` in ints; `0`, `4`, `after data + 8` in bytes.
    pub fn position(self, offset: &Offset, size: &Size) -> String {
        let start = self.amount(offset.bytes);
        let text = match (&offset.after, self) {
            (Some(after), _) if start == 0 => format!("after `{after}`"),
            (Some(after), _) => format!("after `{after}` + {start}"),
            (None, Unit::Byte) => start.to_string(),
            (None, Unit::Int) => match size.bytes().map(|b| self.amount(b)) {
                Some(1) => format!("[{start}]"),
                Some(0) => format!("[{start}] (empty)"),
                Some(n) => format!("[{start}..{}]", start + n - 1),
                None => format!("[{start}..]"),
            },
        };
        if offset.assuming.is_empty() {
            text
        } else {
            let names: Vec<String> = offset.assuming.iter().map(|n| format!("`{n}`")).collect();
            format!("{text} (counting {})", names.join(", "))
        }
    }

    /// A size: `1`, `0 to 5`, `num_items × 3`, `the rest, 6 each`, `by write_data_blocks`.
    pub fn size(self, size: &Size) -> String {
        let element = |element: &Size| match element.bytes() {
            Some(bytes) if self == Unit::Int && bytes % 4 != 0 => format!("{bytes} bytes"),
            Some(bytes) => self.amount(bytes).to_string(),
            None => "varying".to_string(),
        };
        match size {
            Size::Fixed { bytes } if self == Unit::Int && bytes % 4 != 0 => {
                format!("{bytes} bytes")
            }
            Size::Fixed { bytes } => self.amount(*bytes).to_string(),
            Size::Range { min, max } => {
                format!("{} to {}", self.amount(*min), self.amount(*max))
            }
            Size::Count { count, element: e } => match element(e).as_str() {
                "1" => format!("`{}`", count.text),
                each => format!("`{}` × {each}", count.text),
            },
            Size::Rest { element: e } => match element(e).as_str() {
                "1" => "the rest".to_string(),
                each => format!("the rest, {each} each"),
            },
            Size::Elements { element: e } => match element(e).as_str() {
                "1" => "n".to_string(),
                each => format!("n × {each}"),
            },
            Size::Custom { function } => format!("by `{function}`"),
            Size::Varies => "varies".to_string(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The documents.

/// A document of the reference: `docs/format/<name>.md`.
#[derive(Debug, Clone)]
pub struct Document {
    /// The file name without `.md`, and the name `twcodec schema` takes.
    pub name: &'static str,
    /// The title.
    pub title: &'static str,
    /// What it covers and how to read it (Markdown).
    pub intro: &'static str,
    /// How positions are counted.
    pub unit: Unit,
    /// Its sections.
    pub sections: Vec<Section>,
}

impl Document {
    /// Every entry of every section.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.sections.iter().flat_map(|section| &section.entries)
    }
}

/// A section of a document.
#[derive(Debug, Clone)]
pub struct Section {
    /// Its heading.
    pub title: &'static str,
    /// Text under the heading (Markdown), may be empty.
    pub intro: &'static str,
    /// The structures.
    pub entries: Vec<Entry>,
}

/// A structure of a document.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Its description.
    pub describe: fn() -> Structure,
    /// The map item kind it is the layout of.
    pub item: Option<MapItemKind>,
}

fn entry<T: Describe>() -> Entry {
    Entry {
        describe: T::describe,
        item: None,
    }
}

/// The entries of map item kinds, from the registry in [`crate::map`].
fn items<'a>(kinds: impl IntoIterator<Item = &'a MapItemKind>) -> Vec<Entry> {
    kinds
        .into_iter()
        .filter_map(|&kind| {
            Some(Entry {
                describe: kind.describe()?,
                item: Some(kind),
            })
        })
        .collect()
}

/// The entries of snapshot object kinds, from the registry in [`crate::netobj`]: each
/// structure once, leaving out those in `seen` (and adding the others to it).
fn objects(kinds: &[SnapObjectKind], seen: &mut Vec<String>) -> Vec<Entry> {
    let mut entries = Vec::new();
    for kind in kinds {
        let Some(describe) = kind.describe() else {
            continue;
        };
        let name = describe().name;
        if !seen.contains(&name) {
            seen.push(name);
            entries.push(Entry {
                describe,
                item: None,
            });
        }
    }
    entries
}

fn section(title: &'static str, intro: &'static str, entries: Vec<Entry>) -> Section {
    Section {
        title,
        intro,
        entries,
    }
}

/// Every document of the reference, in order.
pub fn documents() -> Vec<Document> {
    use crate::map::{common, envelope, group, image, layer, quad, sound, tile};
    use crate::{datafile, demo, ghost, netobj, snapshot};
    let mut seen = Vec::new();
    vec![
        Document {
            name: "datafile",
            title: "Datafile",
            intro: "The container of maps (datafile.md; DDNet `src/engine/shared/datafile.cpp`): \
                    a `VersionHeader`, a `Header`, the `Tables`, the items (each an `Item`: key, \
                    size, ints), then the data items (zlib streams in version 4). Offsets are in \
                    bytes from the start of each structure; everything is little-endian.",
            unit: Unit::Byte,
            sections: vec![
                section(
                    "Header and tables",
                    "",
                    vec![
                        entry::<datafile::VersionHeader>(),
                        entry::<datafile::Version>(),
                        entry::<datafile::Header>(),
                        entry::<datafile::Tables>(),
                        entry::<datafile::ItemType>(),
                    ],
                ),
                section(
                    "Items",
                    "",
                    vec![
                        entry::<datafile::Item>(),
                        entry::<datafile::ItemHeader>(),
                        entry::<datafile::ItemKey>(),
                    ],
                ),
                section(
                    "The whole file, as written",
                    "How the writer lays out a whole datafile: every count, size and offset is \
                     calculated from the items and data it is given.",
                    vec![entry::<datafile::DatafileLayout>()],
                ),
            ],
        },
        Document {
            name: "map-items",
            title: "Map items",
            intro: "The items of a map (map.md; DDNet `src/game/mapitems.h`). An item's data is \
                    an array of little-endian i32, so positions are int indices into it: \
                    `[1..2]` is ints 1 and 2. Positions after an optional field count it (as \
                    map.md lists version extensions); \"if the item holds it\" marks a field \
                    read only when the item is long enough for it, else left, with anything \
                    else past what the version defines, in the kept `unknown_tail`. The parts \
                    of data items (tiles, quads, sound sources) are laid out here too; \
                    structures with fields of bytes are shown in byte offsets.",
            unit: Unit::Int,
            sections: vec![
                section(
                    "Items",
                    "One structure per item type, in type id order, then DDNet's UUID item \
                     types.",
                    items(MapItemKind::NUMBERED.iter().chain(MapItemKind::WITH_UUID)),
                ),
                section(
                    "Parts of items",
                    "",
                    vec![
                        entry::<common::Point>(),
                        entry::<common::Color>(),
                        entry::<common::I32String<1>>(),
                        entry::<image::ImageFormat>(),
                        entry::<envelope::EnvelopeVersion>(),
                        entry::<group::Clip>(),
                        entry::<layer::LayerHeader>(),
                        entry::<layer::LayerBody>(),
                        entry::<layer::TilemapLayer>(),
                        entry::<layer::PhysicsData>(),
                        entry::<layer::QuadsLayer>(),
                        entry::<layer::SoundsLayer>(),
                        entry::<envelope::EnvPoint>(),
                        entry::<envelope::EnvPoint22>(),
                        entry::<envelope::EnvPointBezier>(),
                    ],
                ),
                section(
                    "Elements of data items",
                    "A layer's data item is an array of one of these (tile types by the \
                     tilemap's physics flags; the old layouts show only in the data size).",
                    vec![
                        entry::<quad::Quad>(),
                        entry::<sound::SoundSource>(),
                        entry::<sound::SoundShape>(),
                        entry::<sound::DeprecatedSoundSource>(),
                        entry::<tile::Tile>(),
                        entry::<tile::Tele>(),
                        entry::<tile::Speedup>(),
                        entry::<tile::Switch>(),
                        entry::<tile::Tune>(),
                        entry::<tile::OldSpeedup>(),
                        entry::<tile::OldSwitch2>(),
                        entry::<tile::OldSwitch3>(),
                        entry::<tile::LegacyTile>(),
                    ],
                ),
                section(
                    "Teeworlds 0.3 items",
                    "In a datafile without a version item, the item types mean these instead.",
                    items(MapItemKind::LEGACY),
                ),
            ],
        },
        Document {
            name: "snapshots",
            title: "Snapshots",
            intro: "Snapshots and snapshot deltas as int arrays, the unpacked form (snapshot.md; \
                    DDNet `src/engine/shared/snapshot.cpp`); on the network and in demos the \
                    ints are packed as variable-length ints. Positions are int indices.",
            unit: Unit::Int,
            sections: vec![
                section(
                    "Snapshots",
                    "",
                    vec![
                        entry::<snapshot::SnapshotLayout>(),
                        entry::<snapshot::SnapshotHeader>(),
                        entry::<snapshot::SnapKey>(),
                    ],
                ),
                section(
                    "Deltas",
                    "",
                    vec![
                        entry::<snapshot::SnapshotDeltaLayout>(),
                        entry::<snapshot::DeltaHeader>(),
                        entry::<snapshot::ItemDeltaHead>(),
                    ],
                ),
                section(
                    "Objects of Teeworlds 0.6 and DDNet",
                    "What the items hold (docs/format-notes.md, \"Snapshot objects\"), from the \
                     registry in the schema's `netobj` module, in type id order; each layout \
                     once, for the first type that has it. Flags are i32 bit sets.",
                    objects(SnapObjectKind::DDNET_06, &mut seen),
                ),
                section(
                    "Objects of Teeworlds 0.7",
                    "The layouts 0.7 does not share with 0.6.",
                    objects(SnapObjectKind::TEEWORLDS_07, &mut seen),
                ),
                section(
                    "DDNet's extended objects",
                    "Named by a UUID that the snapshot announces (type 0). \"If the item holds \
                     it\" marks a field a later DDNet version appended.",
                    objects(SnapObjectKind::EXTENDED, &mut seen),
                ),
                section(
                    "Values of object fields",
                    "",
                    vec![
                        entry::<netobj::common::Weapon>(),
                        entry::<netobj::common::Emote>(),
                        entry::<netobj::common::Team>(),
                        entry::<netobj::common::HookState>(),
                        entry::<netobj::ddnet::Powerup>(),
                        entry::<netobj::ddnet::AuthLevel>(),
                        entry::<netobj::ddnet::LaserType>(),
                        entry::<netobj::ddnet::EntityClass>(),
                        entry::<netobj::seven::PickupKind>(),
                        entry::<netobj::seven::SpecMode>(),
                    ],
                ),
            ],
        },
        Document {
            name: "demos",
            title: "Demos",
            intro: "Demo files (DDNet `src/engine/demo.h`, `src/engine/shared/demo.cpp`; \
                    docs/format-notes.md, \"Demos\"): the start of the file up to the embedded \
                    map, then the chunks. Numbers are big-endian, but for the 2-byte size of a \
                    chunk; offsets are in bytes.\n\
                    \n\
                    A demo is a `DemoStart`, the map (`map_size` bytes), then chunks to the end \
                    of the file. A chunk is a `ChunkHeaderLayout`, then for a data chunk its \
                    `size` bytes of payload: packed ints, Huffman-coded (a snapshot, a delta \
                    against the snapshot before, or a message's bytes as ints). A tick marker \
                    starts each tick; a keyframe marker is followed by a full snapshot. \
                    twcodec keeps every bit of a chunk header (a size written longer than it \
                    needs, the unused bits of a tick marker), so that a demo is written back \
                    byte for byte; its writer makes what DDNet's recorder makes.",
            unit: Unit::Byte,
            sections: vec![
                section(
                    "Header",
                    "",
                    vec![
                        entry::<demo::DemoStart>(),
                        entry::<demo::DemoVersion>(),
                        entry::<demo::DemoHeader>(),
                        entry::<demo::TimelineMarkers>(),
                        entry::<demo::Sha256Extension>(),
                        entry::<demo::FixedString<1>>(),
                    ],
                ),
                section(
                    "Chunks",
                    "The version decides how a tick marker gives its tick: before version 5, \
                     a difference of 1 to 63 in the first byte, or the tick after it; from \
                     version 5, the compressed flag and a difference of 0 to 31, or the tick.",
                    vec![entry::<demo::ChunkHeaderLayout>()],
                ),
            ],
        },
        Document {
            name: "ghosts",
            title: "Ghosts",
            intro: "Ghost files, `.gho` (DDNet `src/engine/client/ghost.h`, `ghost.cpp`; the \
                    item types of `src/game/client/components/ghost.h`): the header, then chunks \
                    until the end of the file. Header numbers and a chunk header's size are \
                    big-endian; offsets are in bytes. A chunk's payload is Huffman-coded packed \
                    ints (the network's code) holding `num_items` items of the chunk's type, \
                    each after the first stored as its int-by-int difference (wrapping) to the \
                    one before; version 4 carries the previous chunk's last item over as the \
                    base when the type stays. The items below are those ints, decoded and \
                    undone, little-endian as twcodec reads them (docs/format-notes.md, \
                    \"Ghosts\").",
            unit: Unit::Byte,
            sections: vec![
                section(
                    "Header",
                    "",
                    vec![
                        entry::<ghost::GhostHeader>(),
                        entry::<ghost::GhostVersion>(),
                        entry::<ghost::ChunkHeader>(),
                    ],
                ),
                section(
                    "Items",
                    "Item types: 0 skin, 1 character without tick, 2 character, 3 start tick \
                     (one int). Other types are kept as they are; DDNet's client skips them.",
                    vec![
                        entry::<ghost::GhostSkin>(),
                        entry::<ghost::GhostCharacter>(),
                    ],
                ),
            ],
        },
        teehistorian(),
        messages(),
        packets(),
    ]
}

/// The document of teehistorian files: the fields of each record kind and of the extension
/// payloads.
fn teehistorian() -> Document {
    use crate::teehistorian as th;
    Document {
        name: "teehistorian",
        title: "Teehistorian",
        intro: "DDNet's server-side record of a game (docs/format-notes.md, \"Teehistorian\"; \
                DDNet `src/game/server/teehistorian.cpp`, `src/engine/shared/\
                teehistorian_ex_chunks.h`): 16 bytes of magic (the UUID \
                `699db17b-8efb-34ff-b1d8-da6f60c15dd1` of `teehistorian@ddnet.tw`), a JSON \
                header ended by a NUL, then records until `FINISH`. A record starts with a \
                packed int: 0 or more is a player diff whose client id it is, -1 to -11 the \
                record kind (`FINISH` -1, `TICK_SKIP` -2, `PLAYER_NEW` -3, `PLAYER_OLD` -4, \
                `INPUT_DIFF` -5, `INPUT_NEW` -6, `MESSAGE` -7, `JOIN` -8, `DROP` -9, \
                `CONSOLE_COMMAND` -10, `EX` -11); its fields follow. Every number is a packed \
                int (1 to 5 bytes), every string NUL-terminated, so offsets past the first \
                field are not fixed.",
        unit: Unit::Byte,
        sections: vec![
            section(
                "Records",
                "The fields after the int that starts the record. `PLAYER_OLD` and `JOIN` \
                 are `ClientId`, `INPUT_NEW` and `INPUT_DIFF` are `Input`, `FINISH` has none.",
                vec![
                    entry::<th::PlayerDiff>(),
                    entry::<th::TickSkip>(),
                    entry::<th::PlayerNew>(),
                    entry::<th::ClientId>(),
                    entry::<th::Input>(),
                    entry::<th::Message>(),
                    entry::<th::PlayerDrop>(),
                    entry::<th::ConsoleCommand>(),
                    entry::<th::Ex>(),
                ],
            ),
            section(
                "Extension payloads",
                "The bytes of an `EX` record, by its UUID. `test` has none; `antibot` is \
                 opaque bytes; `auth-logout`, `joinver6`, `joinver7`, `player-ready` and \
                 `rejoinver6` are a `ClientId`; `save-failure` and `load-failure` a `TeamOnly`.",
                vec![
                    entry::<th::DdnetVersionOld>(),
                    entry::<th::DdnetVersion>(),
                    entry::<th::Auth>(),
                    entry::<th::PlayerSwap>(),
                    entry::<th::TeamSave>(),
                    entry::<th::TeamOnly>(),
                    entry::<th::PlayerTeam>(),
                    entry::<th::TeamPractice>(),
                    entry::<th::PlayerName>(),
                    entry::<th::PlayerFinish>(),
                    entry::<th::TeamFinish>(),
                ],
            ),
        ],
    }
}

/// The document of packet framing: packet and chunk headers of both protocols.
fn packets() -> Document {
    use crate::packet;
    Document {
        name: "packet",
        title: "Packets",
        intro: "The framing of the UDP packets of a connection, in Teeworlds 0.6 (which DDNet \
                extends) and Teeworlds 0.7 (docs/format-notes.md, \"0.7 network framing\"; DDNet \
                `src/engine/shared/network.h`, `network.cpp`: `CNetBase::SendPacket`, \
                `CNetBase::UnpackPacket`, `CNetChunkHeader::Pack` and `Unpack`; Teeworlds 0.7 \
                the same files). The structures are `schema/src/packet.rs`; the codec's reader \
                of 0.7 packets, which goes through them, is `src/packet.rs` (`twcodec::packet`).\n\
                \n\
                A packet is a header, then the payload: for a control packet one control \
                message byte and its data (keep-alive, connect, accept, close, and in 0.7 the \
                token handshake), otherwise `num_chunks` chunks, one after another. With the \
                compression flag the whole payload is Huffman-coded (the fixed code of \
                `src/engine/shared/huffman.cpp`); the chunk headers are inside it. A chunk is a \
                chunk header, then `size` bytes of data: one message, which starts with its \
                [`MessageHeader`](messages.md#messageheader). A packet is at most 1400 bytes \
                (`NET_MAX_PACKETSIZE`).\n\
                \n\
                | | 0.6/DDNet | 0.7 |\n\
                |---|---|---|\n\
                | packet header | 3 bytes: flags, ack, `num_chunks` | 7 bytes: the same and a \
                4-byte token |\n\
                | flag bits (upper 6 bits of byte 0) | 1 unused (0.7's control), 2 token, 4 \
                control, 8 connless, 16 resend, 32 compression | 1 control, 2 resend, 4 \
                compression, 8 connless, 16 and 32 reserved |\n\
                | chunk size | 10 bits, 6 in byte 0 and 4 in byte 1 | 12 bits, 6 and 6 |\n\
                | sequence bits in byte 1 | 4: bits 6 to 9, overlapping the third byte's bits 6 \
                and 7 (ORed) | 2: bits 8 and 9 |\n\
                | connection token | DDNet: 4 bytes at the end of the payload, when \
                negotiated | in the header |\n\
                | connectionless packets | 6 bytes of `0xff` (DDNet's extended: `xe` and 4 \
                bytes), then the data | flag byte, token, response token (9 bytes) |\n\
                \n\
                Tables give byte offsets. The first two bytes of each header are one \
                big-endian `u16` (`bits`) whose bits a `modular-bitfield` structure names \
                (`PacketBits6`, `PacketBits7`, `ChunkBits6`, `ChunkBits7`); each structure's \
                description has the table of its bits, and the schema reads them into the \
                fields `flags`, `ack`, `size` and `sequence_high`.",
        unit: Unit::Byte,
        sections: vec![
            section(
                "Packet headers",
                "The ack is the sequence number of the last vital chunk received; \
                 `num_chunks` is 0 in a control packet.",
                vec![
                    entry::<packet::PacketHeader6>(),
                    entry::<packet::PacketHeader7>(),
                ],
            ),
            section(
                "Chunk headers",
                "Two bytes, three for a vital chunk, whose third byte is the low 8 bits of \
                 its 10-bit sequence number.",
                vec![
                    entry::<packet::ChunkHeader6>(),
                    entry::<packet::ChunkHeader7>(),
                ],
            ),
            section(
                "What twcodec checks",
                "The schema reads and writes every header bit for bit and refuses only what \
                 does not fit (an ack past 10 bits, a size past the split, a sequence byte on \
                 a chunk that is not vital). The codec's `Packet7::parse` and \
                 `Packet7::chunks` (`src/packet.rs`, module docs) add what the game checks \
                 before it reads a 0.7 packet: the length (7 to 1400 bytes), no connectionless \
                 packet (not read), a control packet uncompressed, without chunks and with its \
                 message byte (DDNet `IsValidConnectionOrientedPacket`), a compressed payload \
                 that decodes within `NET_MAX_PAYLOAD`, and each chunk's header and data \
                 within the payload. Bytes after the last chunk are allowed (Teeworlds ignores \
                 them; DDNet's 0.6 security token sits there) and counted. In a snapshot \
                 message, bytes after the data are allowed too, as both games' clients ignore \
                 them. Every error names the byte offset.",
                vec![],
            ),
        ],
    }
}

/// The document of game and system messages.
fn messages() -> Document {
    use crate::netmsg::{ddnet, game, game7, system};
    Document {
        name: "messages",
        title: "Messages",
        intro: "Game and system messages (docs/format-notes.md, \"Messages\"; DDNet \
                `datasrc/network.py`, `datasrc/seven/network.py`, `src/engine/shared/packer.cpp`): \
                the fields after a message's header, the packed int `(id << 1) | system` (for id \
                0, DDNet's extended messages, a 16-byte UUID follows). Each message's ids in the \
                0.6/DDNet and 0.7 protocols, or the name of its UUID, are its line in the \
                message registry in `schema/src/netmsg/mod.rs`. A `VarInt` is a packed int of 1 \
                to 5 bytes, so positions after one are counted from it; a \
                `NetString` is its bytes up to and with a NUL; `SizedData` is a packed int, then \
                that many bytes. Demos store a message padded with zeros to whole ints.",
        unit: Unit::Byte,
        sections: vec![
            section(
                "Header",
                "What every message starts with, in both protocols.",
                vec![entry::<crate::netmsg::MessageHeader>()],
            ),
            section(
                "Game messages",
                "Of 0.6/DDNet, and those 0.7 has with the same fields.",
                vec![
                    entry::<game::SvMotd>(),
                    entry::<game::SvBroadcast>(),
                    entry::<game::SvChat>(),
                    entry::<game::SvKillMsg>(),
                    entry::<game::SvSoundGlobal>(),
                    entry::<game::NoFields>(),
                    entry::<game::SvTuneParams>(),
                    entry::<game::SvWeaponPickup>(),
                    entry::<game::SvEmoticon>(),
                    entry::<game::SvVoteOptionListAdd>(),
                    entry::<game::SvVoteOptionAdd>(),
                    entry::<game::SvVoteOptionRemove>(),
                    entry::<game::SvVoteSet>(),
                    entry::<game::SvVoteStatus>(),
                    entry::<game::SvDDRaceTime>(),
                    entry::<game::SvRecord>(),
                    entry::<game::SvTeamsState>(),
                ],
            ),
            section(
                "Game messages of 0.7",
                "",
                vec![
                    entry::<game7::SvChat7>(),
                    entry::<game7::SvTeam7>(),
                    entry::<game7::SvVoteOptionListAdd7>(),
                    entry::<game7::SvVoteSet7>(),
                    entry::<game7::SvServerSettings7>(),
                    entry::<game7::SvClientInfo7>(),
                    entry::<game7::SvGameInfo7>(),
                    entry::<game7::SvClientDrop7>(),
                    entry::<game7::SvGameMsg7>(),
                    entry::<game7::DeClientEnter7>(),
                    entry::<game7::DeClientLeave7>(),
                    entry::<game7::SvSkinChange7>(),
                    entry::<game7::SvRaceFinish>(),
                    entry::<game7::SvCheckpoint7>(),
                    entry::<game7::SvCommandInfo>(),
                    entry::<game7::SvCommandInfoRemove>(),
                ],
            ),
            section(
                "DDNet's extended game messages",
                "Named by a UUID; those with the fields of a message above use its structure.",
                vec![
                    entry::<ddnet::SvKillMsgTeam>(),
                    entry::<ddnet::SvYourVote>(),
                    entry::<ddnet::SvChangeInfoCooldown>(),
                    entry::<ddnet::SvMapSoundGlobal>(),
                    entry::<ddnet::SvPreInput>(),
                    entry::<ddnet::SvSaveCode>(),
                    entry::<ddnet::TextMessage>(),
                ],
            ),
            section(
                "System messages",
                "",
                vec![
                    entry::<system::MapChange>(),
                    entry::<system::MapChange7>(),
                    entry::<system::MapData>(),
                    entry::<system::MapData7>(),
                    entry::<system::Snap>(),
                    entry::<system::SnapEmpty>(),
                    entry::<system::SnapSingle>(),
                    entry::<system::InputTiming>(),
                    entry::<system::RconAuthStatus>(),
                    entry::<system::RconLine>(),
                    entry::<system::RconCmdAdd>(),
                    entry::<system::NameMessage>(),
                    entry::<system::Capabilities>(),
                    entry::<system::MapDetails>(),
                    entry::<system::NumberMessage>(),
                    entry::<system::PingEx>(),
                ],
            ),
        ],
    }
}

/// The structure of map items of kind `kind`, if the reference has one.
pub fn map_item(kind: MapItemKind) -> Option<Structure> {
    kind.describe().map(|describe| describe())
}

// ---------------------------------------------------------------------------------------------
// Placing a structure over real bytes.

/// Where a structure's fields lie in some bytes, by [`Structure::place`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// The present fields, nested ones with their paths (`header.kind`, `body.Tilemap.0.name`),
    /// in order. A structure field is listed before the fields inside it.
    pub fields: Vec<Placed>,
    /// Fields whose condition holds but which the input is too short for (`when`, `try`).
    pub missing: Vec<String>,
    /// Where the structure ends.
    pub end: u64,
}

/// A present field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Its path.
    pub path: String,
    /// Its first byte.
    pub start: u64,
    /// Its size in bytes.
    pub size: u64,
}

impl Structure {
    /// Where this structure's fields lie when it is read from `bytes` with `imports`, by the
    /// description alone: the conditions evaluated on the values of earlier fields, sizes from
    /// the types, counts evaluated, variants picked by their conditions. Fails where the
    /// description says reading fails (the input ends inside a field that must be there, no
    /// variant fits) or where it cannot tell (a condition it cannot evaluate, a field read by
    /// a function).
    pub fn place(&self, bytes: &[u8], imports: &[(&str, i64)]) -> Result<Placement, String> {
        let mut scope = Scope::default();
        for (name, value) in imports {
            scope.values.insert(name.to_string(), *value);
        }
        let mut placer = Placer {
            bytes,
            placement: Placement::default(),
        };
        let endian = self.endian.clone().unwrap_or_else(|| "little".to_string());
        let end = placer.structure(self, 0, scope, "", &endian)?;
        placer.placement.end = end;
        Ok(placer.placement)
    }
}

struct Placer<'a> {
    bytes: &'a [u8],
    placement: Placement,
}

impl Placer<'_> {
    /// Places `structure` at `start`; returns its end. Values of its integer fields go into
    /// `scope` (for the caller, under `prefix`).
    fn structure(
        &mut self,
        structure: &Structure,
        start: u64,
        mut scope: Scope,
        prefix: &str,
        endian: &str,
    ) -> Result<u64, String> {
        let endian = structure.endian.as_deref().unwrap_or(endian).to_string();
        let mut at = start;
        if let Some(magic) = &structure.magic {
            at = self.fields(std::slice::from_ref(magic), at, &mut scope, prefix, &endian)?;
        }
        match &structure.body {
            Body::Fields { fields } => self.fields(fields, at, &mut scope, prefix, &endian),
            Body::Variants { variants } => {
                let mut chosen = Vec::new();
                for variant in variants {
                    let holds = match &variant.condition {
                        Some(condition) => condition.expr.eval(&scope)? != 0,
                        None => true,
                    };
                    if holds {
                        chosen.push(variant);
                    }
                }
                let [variant] = chosen[..] else {
                    return Err(format!(
                        "{} of the variants of {} fit",
                        chosen.len(),
                        structure.name
                    ));
                };
                let prefix = format!("{prefix}{}.", variant.name);
                self.fields(&variant.fields, at, &mut scope, &prefix, &endian)
            }
            Body::Mapped { read_as, .. } | Body::Repr { read_as, .. } => {
                let size = read_as
                    .disk
                    .size
                    .bytes()
                    .ok_or_else(|| format!("{} has no fixed size", structure.name))?;
                if self.left(at) < size {
                    return Err(format!("the input ends inside {}", structure.name));
                }
                Ok(at + size)
            }
        }
    }

    fn left(&self, at: u64) -> u64 {
        (self.bytes.len() as u64).saturating_sub(at)
    }

    fn fields(
        &mut self,
        fields: &[Field],
        mut at: u64,
        scope: &mut Scope,
        prefix: &str,
        endian: &str,
    ) -> Result<u64, String> {
        for field in fields {
            let path = format!("{prefix}{}", field.name);
            let wanted = match &field.condition {
                Some(condition) => condition.expr.eval(scope)? != 0,
                None => true,
            };
            if !wanted {
                scope.present.insert(field.name.clone(), false);
                continue;
            }
            let left = self.left(at);
            let nested = (field.nested)();
            let size = match &field.size {
                Size::Fixed { bytes } => *bytes,
                Size::Count { count, element } => {
                    let each = element
                        .bytes()
                        .ok_or_else(|| format!("`{path}` has elements of varying size"))?;
                    let n = count.expr.eval(scope)?;
                    let n = u64::try_from(n).map_err(|_| format!("`{path}`: count {n}"))?;
                    n.checked_mul(each).ok_or("overflow")?
                }
                Size::Rest { element } => {
                    let each = element
                        .bytes()
                        .filter(|&each| each > 0)
                        .ok_or_else(|| format!("`{path}` has elements of varying size"))?;
                    left / each * each
                }
                Size::Range { .. } | Size::Varies if nested.is_some() => {
                    // Placed inside first, which says how far it goes.
                    let inner = nested.as_ref().unwrap_or_else(|| unreachable!());
                    let mut inner_scope = Scope::default();
                    for (index, arg) in field.args.iter().enumerate() {
                        let name = inner
                            .imports
                            .get(index)
                            .filter(|_| arg.name.parse::<usize>().is_ok())
                            .map_or(arg.name.clone(), |import| import.name.clone());
                        inner_scope.values.insert(name, arg.expr.eval(scope)?);
                    }
                    let mark = self.placement.fields.len();
                    let end =
                        self.structure(inner, at, inner_scope, &format!("{path}."), endian)?;
                    self.placement.fields.insert(
                        mark,
                        Placed {
                            path: path.clone(),
                            start: at,
                            size: end - at,
                        },
                    );
                    scope.present.insert(field.name.clone(), true);
                    at = end;
                    continue;
                }
                other => return Err(format!("cannot place `{path}` ({other:?})")),
            };
            if left < size {
                if matches!(
                    field.condition.as_ref().map(|c| c.kind),
                    Some(ConditionKind::When)
                ) || field.try_read
                {
                    // Nothing consumed: what is there stays for the kept tail.
                    self.placement.missing.push(path);
                    scope.present.insert(field.name.clone(), false);
                    continue;
                }
                return Err(format!(
                    "the input ends inside `{path}` ({left} of {size} bytes left)"
                ));
            }
            self.placement.fields.push(Placed {
                path: path.clone(),
                start: at,
                size,
            });
            scope.present.insert(field.name.clone(), true);
            if let Some(value) = self.int(&field.disk_type, at, size, endian) {
                scope.values.insert(field.name.clone(), value);
            }
            if let Some(inner) = nested {
                // The values inside, for conditions that name them (`header.kind`).
                let mut placer = Placer {
                    bytes: self.bytes,
                    placement: Placement::default(),
                };
                let mut inner_scope = Scope::default();
                if let Body::Fields { fields } = &inner.body {
                    let inner_endian = inner.endian.as_deref().unwrap_or(endian);
                    if placer
                        .fields(fields, at, &mut inner_scope, "", inner_endian)
                        .is_ok()
                    {
                        for (name, value) in inner_scope.values {
                            scope.values.insert(format!("{}.{name}", field.name), value);
                        }
                    }
                }
            }
            at += size;
        }
        Ok(at)
    }

    /// The integer of type `ty` at `at`, if it is one.
    fn int(&self, ty: &str, at: u64, size: u64, endian: &str) -> Option<i64> {
        let start = usize::try_from(at).ok()?;
        let bytes = self.bytes.get(start..start.checked_add(size as usize)?)?;
        let mut buffer = [0u8; 8];
        let value = match (ty, bytes.len()) {
            ("u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64", 1 | 2 | 4 | 8) => {
                if endian == "big" {
                    buffer[8 - bytes.len()..].copy_from_slice(bytes);
                    u64::from_be_bytes(buffer)
                } else {
                    buffer[..bytes.len()].copy_from_slice(bytes);
                    u64::from_le_bytes(buffer)
                }
            }
            _ => return None,
        };
        let bits = bytes.len() as u32 * 8;
        Some(if ty.starts_with('i') && bits < 64 {
            // Sign-extend.
            let shift = 64 - bits;
            ((value << shift) as i64) >> shift
        } else {
            value as i64
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(value) => write!(f, "{value}"),
            Expr::Bool(value) => write!(f, "{value}"),
            Expr::Field(path) => f.write_str(&path.join(".")),
            Expr::Const(text) | Expr::Other(text) => f.write_str(text),
            Expr::Binary { op, left, right } => write!(f, "{left} {op} {right}"),
            Expr::Not(inner) => write!(f, "!{inner}"),
            Expr::Paren(inner) => write!(f, "({inner})"),
            Expr::IsSome(path) => write!(f, "{}.is_some()", path.join(".")),
            Expr::IsNone(path) => write!(f, "{}.is_none()", path.join(".")),
            Expr::Matches(value, cases) => {
                let cases: Vec<String> = cases.iter().map(i64::to_string).collect();
                write!(f, "matches!({value}, {})", cases.join(" | "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::envelope::{EnvPoint, EnvPoint22, EnvPointBezier, EnvPointsItem};
    use crate::map::group::GroupItem;
    use crate::map::layer::{LayerBody, LayerHeader, LayerItem, TilemapLayer};
    use crate::map::quad::Quad;
    use crate::map::sound::{DeprecatedSoundSource, SoundSource};
    use crate::map::tile::{Speedup, Tile};
    use crate::map::{Color, I32String, Point};

    /// `(position, name, size, condition)` of each field, in ints.
    fn rows(structure: &Structure) -> Vec<(String, String, String, String)> {
        structure
            .fields()
            .iter()
            .map(|field| {
                (
                    Unit::Int.position(&field.offset, &field.size),
                    field.name.clone(),
                    Unit::Int.size(&field.size),
                    field
                        .condition
                        .as_ref()
                        .map_or(String::new(), |c| c.text.clone()),
                )
            })
            .collect()
    }

    fn row(
        position: &str,
        name: &str,
        size: &str,
        condition: &str,
    ) -> (String, String, String, String) {
        (
            position.to_string(),
            name.to_string(),
            size.to_string(),
            condition.to_string(),
        )
    }

    #[test]
    fn group_item_is_laid_out_as_map_md_says() {
        // map.md, "Groups": 7 ints, the version-2 clip (5 ints), the version-3 name (3 ints);
        // DDNet `CMapItemGroup` in the same order.
        let group = GroupItem::describe();
        assert_eq!(group.name, "GroupItem");
        assert!(group.doc.starts_with("A layer group (map.md, \"Groups\""));
        assert_eq!(
            rows(&group),
            [
                row("[0]", "version", "1", ""),
                row("[1..2]", "offset", "2", ""),
                row("[3..4]", "parallax", "2", ""),
                row("[5]", "start_layer", "1", ""),
                row("[6]", "num_layers", "1", ""),
                row("[7..11]", "clip", "5", "version >= 2"),
                row(
                    "[12..14] (counting `clip`)",
                    "name",
                    "3",
                    "version >= 3 && clip.is_some()"
                ),
                row(
                    "[15..] (counting `clip`, `name`)",
                    "unknown_tail",
                    "the rest",
                    ""
                ),
            ]
        );
        let clip = group.field("clip").unwrap();
        assert_eq!(clip.condition.as_ref().unwrap().kind, ConditionKind::When);
        assert_eq!(clip.rust_type, "Option<Clip>");
        assert_eq!(clip.structure, Some("Clip"));
        assert_eq!(group.field("offset").unwrap().structure, Some("Point"));
        assert_eq!(group.endian.as_deref(), Some("little"));
    }

    #[test]
    fn layers_are_laid_out_as_ddnet_mapitems_h_says() {
        // DDNet `CMapItemLayer` (3 ints), then `CMapItemLayerTilemap`'s own fields: version,
        // width, height, flags, color (4), color env, offset, image, data, name (3), then
        // tele, speedup, front, switch, tune.
        let layer = LayerItem::describe();
        assert_eq!(
            rows(&layer),
            [
                row("[0..2]", "header", "3", ""),
                row("[3..]", "body", "varies", "")
            ]
        );
        let body = layer.field("body").unwrap();
        assert_eq!(body.args.len(), 1);
        assert_eq!(
            (body.args[0].name.as_str(), body.args[0].text.as_str()),
            ("kind", "header.kind")
        );
        assert_eq!(
            rows(&LayerHeader::describe())[1],
            row("[1]", "kind", "1", "")
        );
        let flags = LayerHeader::describe().fields()[2].clone();
        assert_eq!(
            (flags.rust_type.as_str(), flags.disk_type.as_str()),
            ("LayerFlags", "i32")
        );

        let body = LayerBody::describe();
        assert_eq!(
            body.imports,
            [Import {
                name: "kind".into(),
                ty: "i32".into()
            }]
        );
        let Body::Variants { variants } = &body.body else {
            panic!("LayerBody is an enum");
        };
        let conditions: Vec<(&str, &str)> = variants
            .iter()
            .map(|v| (v.name.as_str(), v.condition.as_ref().unwrap().text.as_str()))
            .collect();
        assert_eq!(
            conditions,
            [
                ("Tilemap", "kind == 2"),
                ("Quads", "kind == 3"),
                ("DeprecatedSounds", "kind == 9"),
                ("Sounds", "kind == 10"),
                // The layer type only these tests register (its line in layer.rs).
                ("Example", "kind == 99"),
                ("Unknown", "!matches!(kind, 2 | 3 | 9 | 10 | 99)"),
            ]
        );

        let tilemap = rows(&TilemapLayer::describe());
        let names: Vec<&str> = tilemap.iter().map(|r| r.1.as_str()).collect();
        assert_eq!(
            names,
            [
                "version",
                "width",
                "height",
                "flags",
                "color",
                "color_envelope",
                "color_envelope_offset",
                "image",
                "data",
                "name",
                "physics",
                "unknown_tail"
            ]
        );
        assert_eq!(tilemap[4], row("[4..7]", "color", "4", ""));
        assert_eq!(tilemap[8], row("[11]", "data", "1", ""));
        assert_eq!(tilemap[9], row("[12..14]", "name", "3", "version >= 3"));
        assert_eq!(
            tilemap[10],
            row(
                "[15..] (counting `name`)",
                "physics",
                "0 to 5",
                "version < 3 || name.is_some()"
            )
        );
        assert_eq!(tilemap[11].0, "after `physics`");
    }

    #[test]
    fn sizes_come_from_the_types() {
        let fixed = |size: Size| size.bytes().unwrap() as usize;
        assert_eq!(fixed(Quad::size()), Quad::SIZE);
        assert_eq!(fixed(SoundSource::size()), SoundSource::SIZE);
        assert_eq!(
            fixed(DeprecatedSoundSource::size()),
            DeprecatedSoundSource::SIZE
        );
        assert_eq!(
            fixed(crate::demo::DemoHeader::size()),
            crate::demo::DemoHeader::SIZE
        );
        assert_eq!(
            fixed(crate::demo::TimelineMarkers::size()),
            crate::demo::TimelineMarkers::SIZE
        );
        assert_eq!(
            fixed(crate::demo::Sha256Extension::size()),
            crate::demo::Sha256Extension::SIZE
        );
        assert_eq!(
            fixed(crate::datafile::Header::size()),
            crate::datafile::Header::SIZE
        );
        assert_eq!(
            fixed(crate::datafile::VersionHeader::size()),
            crate::datafile::VersionHeader::SIZE
        );
        assert_eq!(
            fixed(crate::datafile::ItemType::size()),
            crate::datafile::ItemType::SIZE
        );
        assert_eq!(
            fixed(crate::datafile::ItemHeader::size()),
            crate::datafile::ItemHeader::SIZE
        );
        assert_eq!(
            fixed(crate::snapshot::SnapshotHeader::size()),
            crate::snapshot::SnapshotHeader::SIZE
        );
        assert_eq!(
            fixed(crate::snapshot::DeltaHeader::size()),
            crate::snapshot::DeltaHeader::SIZE
        );
        // Types cast from bytes: the reference's size is the in-memory size.
        assert_eq!(fixed(Tile::size()), std::mem::size_of::<Tile>());
        assert_eq!(fixed(Speedup::size()), std::mem::size_of::<Speedup>());
        assert_eq!(fixed(EnvPoint::size()), std::mem::size_of::<EnvPoint>());
        assert_eq!(fixed(EnvPoint22::size()), std::mem::size_of::<EnvPoint22>());
        assert_eq!(
            fixed(EnvPointBezier::size()),
            std::mem::size_of::<EnvPointBezier>()
        );
        assert_eq!(fixed(Point::size()), 8);
        assert_eq!(fixed(Color::size()), 16);
        // A const parameter: by name in the description, by value where it is used.
        assert_eq!(fixed(I32String::<3>::size()), 12);
        let generic = I32String::<3>::describe();
        assert_eq!(generic.name, "I32String<N>");
        assert_eq!(Unit::Int.size(&generic.fields()[0].size), "`N`");
    }

    #[test]
    fn mapped_counted_and_calculated_fields() {
        // `map = uuid_from_ints`: the function's argument type, found by the compiler.
        let uuid = crate::uuid::UuidIndexItem::describe();
        let field = uuid.field("uuid").unwrap();
        assert_eq!(field.disk_type, "[i32; 4]");
        assert_eq!(field.read_via.as_deref(), Some("uuid_from_ints"));
        assert_eq!(field.size, Size::fixed(16));

        let item = crate::datafile::Item::describe();
        let size = item.field("size").unwrap();
        assert!(size.temp);
        assert_eq!(size.asserts, ["valid_item_size(size)"]);
        assert_eq!(
            size.written_as.as_deref(),
            Some("to_i32(\"item size\", data.len().saturating_mul(4))")
        );
        assert_eq!(
            Unit::Byte.size(&item.field("data").unwrap().size),
            "`size / 4` × 4"
        );

        let header = crate::demo::DemoHeader::describe();
        let magic = &header.fields()[0];
        assert_eq!(magic.magic.as_deref(), Some("b\"TWDEMO\\0\""));
        assert_eq!(magic.size, Size::fixed(7));
        assert_eq!(header.endian.as_deref(), Some("big"));

        let version = crate::datafile::Version::describe();
        let Body::Repr { read_as, variants } = &version.body else {
            panic!("Version is a repr enum");
        };
        assert_eq!(read_as.disk.type_name, "i32");
        assert_eq!(variants[1].discriminant.as_deref(), Some("4"));

        // Written only: the write-side map gives the type on disk.
        let layout = crate::datafile::DatafileLayout::describe();
        assert_eq!(layout.fields()[0].disk_type, "[u8; 4]");
        assert!(
            layout.field("old_size_fields").is_none(),
            "ignored when writing"
        );
    }

    #[test]
    fn every_structure_is_listed_once_and_every_item_kind_has_one() {
        let mut names = std::collections::HashSet::new();
        for document in documents() {
            for entry in document.entries() {
                let structure = (entry.describe)();
                assert!(
                    names.insert(structure.ident.clone()),
                    "{} twice",
                    structure.ident
                );
            }
        }
        let kinds = MapItemKind::NUMBERED.iter().chain(MapItemKind::WITH_UUID);
        for kind in kinds {
            assert!(map_item(*kind).is_some(), "{kind:?}");
        }
        assert!(map_item(MapItemKind::Unknown).is_none());
    }

    fn le_bytes(ints: &[i32]) -> Vec<u8> {
        ints.iter().flat_map(|i| i.to_le_bytes()).collect()
    }

    fn paths(placement: &Placement) -> Vec<(&str, u64, u64)> {
        placement
            .fields
            .iter()
            .map(|p| (p.path.as_str(), p.start / 4, p.size / 4))
            .collect()
    }

    #[test]
    fn placing_follows_versions_and_lengths() {
        let group = GroupItem::describe();
        let mut v3 = vec![3, 0, 0, 100, 100, 0, 1, 1, 2, 3, 4, 5];
        v3.extend(I32String::<3>::new(b"Game").ints);
        let placed = group.place(&le_bytes(&v3), &[]).unwrap();
        assert_eq!(
            paths(&placed),
            [
                ("version", 0, 1),
                ("offset", 1, 2),
                ("parallax", 3, 2),
                ("start_layer", 5, 1),
                ("num_layers", 6, 1),
                ("clip", 7, 5),
                ("name", 12, 3),
                ("unknown_tail", 15, 0),
            ]
        );
        assert!(placed.missing.is_empty());

        // Version 1: neither extension is read, the extra int is the tail.
        let v1 = [1, 0, 0, 100, 100, 0, 1, 9];
        let placed = group.place(&le_bytes(&v1), &[]).unwrap();
        assert_eq!(placed.fields.last().unwrap().path, "unknown_tail");
        assert_eq!(placed.fields.last().unwrap().size, 4);

        // Version 3 cut inside the clip: clip and name are missing, the ints stay for the tail.
        let short = [3, 0, 0, 100, 100, 0, 1, 1, 2, 3];
        let placed = group.place(&le_bytes(&short), &[]).unwrap();
        assert_eq!(placed.missing, ["clip"]);
        assert_eq!(paths(&placed).last(), Some(&("unknown_tail", 7, 3)));

        // Too short for the fields every group has.
        assert!(group.place(&le_bytes(&[3, 0]), &[]).is_err());
    }

    #[test]
    fn placing_layers_picks_the_variant_by_the_header() {
        let layer = LayerItem::describe();
        // A version-2 DDRace tilemap with 4 of the 5 physics indices.
        let ints = [
            0, 2, 0, 2, 50, 30, 4, 255, 255, 255, 255, -1, 0, -1, 7, 11, 9, 13, 5,
        ];
        let placed = layer.place(&le_bytes(&ints), &[]).unwrap();
        let found = paths(&placed);
        assert!(
            found.contains(&("body.Tilemap.0.physics", 15, 4)),
            "{found:?}"
        );
        assert!(
            found.contains(&("body.Tilemap.0.physics.switch", 18, 1)),
            "{found:?}"
        );
        assert_eq!(placed.missing, ["body.Tilemap.0.physics.tune"]);
        assert_eq!(placed.end, 19 * 4);

        // An unknown layer type: the rest of the item is its body.
        let placed = layer.place(&le_bytes(&[0, 7, 0, 1, 2]), &[]).unwrap();
        assert_eq!(paths(&placed).last(), Some(&("body.Unknown.0", 3, 2)));

        // Envelope points: 6 or 22 ints each, by the import.
        let points = EnvPointsItem::describe();
        let ints: Vec<i32> = (0..22 + 3).collect();
        let placed = points.place(&le_bytes(&ints), &[("bezier", 1)]).unwrap();
        assert_eq!(
            paths(&placed),
            [("Points22.points", 0, 22), ("Points22.unknown_tail", 22, 3)]
        );
        let placed = points.place(&le_bytes(&ints), &[("bezier", 0)]).unwrap();
        assert_eq!(
            paths(&placed),
            [("Points.points", 0, 24), ("Points.unknown_tail", 24, 1)]
        );
    }

    #[test]
    fn expressions_evaluate_and_print_as_written() {
        let mut scope = Scope::default();
        scope.values.insert("version".into(), 3);
        scope.values.insert("header.kind".into(), 9);
        scope.present.insert("clip".into(), true);
        let version = || Expr::Field(vec!["version".into()]);
        let cases = [
            (
                Expr::binary(">=", version(), Expr::Int(3)),
                1,
                "version >= 3",
            ),
            (
                Expr::binary(
                    "&&",
                    Expr::binary("<", version(), Expr::Int(3)),
                    Expr::IsSome(vec!["clip".into()]),
                ),
                0,
                "version < 3 && clip.is_some()",
            ),
            (
                Expr::Not(Box::new(Expr::Matches(
                    Box::new(Expr::Field(vec!["header".into(), "kind".into()])),
                    vec![2, 3, 9, 10],
                ))),
                0,
                "!matches!(header.kind, 2 | 3 | 9 | 10)",
            ),
            (Expr::binary("/", Expr::Int(20), Expr::Int(4)), 5, "20 / 4"),
        ];
        for (expr, value, text) in cases {
            assert_eq!(expr.eval(&scope), Ok(value), "{text}");
            assert_eq!(expr.to_string(), text);
        }
        assert!(Expr::Const("Version::V4".into()).eval(&scope).is_err());
        assert!(Expr::Field(vec!["width".into()]).eval(&scope).is_err());
    }

    #[test]
    fn type_names_lose_their_paths() {
        assert_eq!(short_type_name("[i32; 4]"), "[i32; 4]");
        assert_eq!(
            short_type_name("core::option::Option<twcodec_schema::map::common::Point>"),
            "Option<Point>"
        );
    }
}
