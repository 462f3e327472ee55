//! `#[describe]`: the format reference of a binrw structure, read from the same attributes that
//! binrw compiles.
//!
//! Put it above `#[binrw]` (or `#[binread]`, `#[binwrite]`, or a derive of `BinRead`/
//! `BinWrite`). Attribute macros expand outermost first, so this one sees the `#[br]`, `#[bw]`
//! and `#[brw]` attributes before binrw consumes them. It gives the item back unchanged and adds
//! implementations of `twcodec_schema::reference::Describe` and `OnDisk`: the structure's name,
//! doc comment, byte order, magic, imports and checks, and per field (or per variant of an enum)
//! its name, type, doc comment, size and the condition under which it is present. Those
//! implementations carry `#[cfg(feature = "reference")]`, the schema's feature (a `cfg` in
//! generated code is the using crate's): without it the attribute adds only its serde
//! attributes (below).
//!
//! Sizes are computed by the generated code from the real types (`<T as OnDisk>::size()`), never
//! written down: a field read through `map`/`try_map` takes the size of the function's argument
//! (a closure's annotated argument type, or a function's argument type inferred by the compiler);
//! `count = N` makes `N` elements, `parse_with = until_eof` (or the schema's `cast_rest`) the rest
//! of the input, `parse_with = when(COND)` an optional value present under `COND`.
//!
//! Conditions are kept as text and, for the forms the reference can evaluate, as a tree:
//! comparisons and arithmetic of integer literals and fields (`version >= 2`, `header.kind`),
//! `&&`, `||`, `!`, `x.is_some()`/`x.is_none()` of an earlier field, and
//! `matches!(x, 1 | 2)` with integer patterns. Anything else is shown as written.
//!
//! Directives that move data around in ways the reference does not model (padding, alignment,
//! seeking, `restore_position`, runtime byte order) are a compile error, so that the reference
//! is never silently wrong.

mod text;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam, Lit, Type};

/// Describes a binrw structure for the format reference; see the crate documentation.
#[proc_macro_attribute]
pub fn describe(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    let item: TokenStream = item.into();
    let attr: TokenStream = attr.into();
    if !attr.is_empty() {
        let error =
            syn::Error::new_spanned(attr, "#[describe] takes no arguments").to_compile_error();
        return quote!(#item #error).into();
    }
    match syn::parse2::<DeriveInput>(item.clone()) {
        Ok(mut input) => {
            let extra = expand(&input).unwrap_or_else(|error| error.to_compile_error());
            skip_absent_fields(&mut input);
            quote!(#input #extra).into()
        }
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#item #error).into()
        }
    }
}

/// Leaves the fields a version does not have out of every serde rendering: an `Option` field
/// read under a condition (`if(...)` or `when(...)`) gets
/// `#[serde(skip_serializing_if = "Option::is_none")]` unless it says otherwise, so that a new
/// version's field shows only in the dumps of items that have it (docs/extending.md).
fn skip_absent_fields(input: &mut DeriveInput) {
    // `derive(Serialize)`, or `cfg_attr(feature = "serde", derive(serde::Serialize))` when the
    // schema's `serde` feature decides.
    let serialized = input.attrs.iter().any(|attr| {
        (attr.path().is_ident("derive") || attr.path().is_ident("cfg_attr"))
            && attr.to_token_stream().to_string().contains("Serialize")
    });
    let syn::Data::Struct(data) = &mut input.data else {
        return;
    };
    if !serialized {
        return;
    }
    for field in data.fields.iter_mut() {
        let is_option = matches!(
            &field.ty,
            syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Option")
        );
        let conditional = directives(&field.attrs).is_ok_and(|found| {
            found.iter().any(|directive| {
                directive.side != Side::Write
                    && match directive.name.as_str() {
                        "if" => true,
                        "parse_with" => directive.expr().is_ok_and(|expr| match &expr {
                            syn::Expr::Call(call) => {
                                last_segment(&call.func).as_deref() == Some("when")
                            }
                            _ => false,
                        }),
                        _ => false,
                    }
            })
        });
        let said = field.attrs.iter().any(|attr| {
            (attr.path().is_ident("serde") || attr.path().is_ident("cfg_attr"))
                && attr
                    .to_token_stream()
                    .to_string()
                    .contains("skip_serializing")
        });
        if is_option && conditional && !said {
            field
                .attrs
                .push(syn::parse_quote!(#[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]));
        }
    }
}

/// The path of the runtime types.
fn runtime() -> TokenStream {
    quote!(::twcodec_schema::reference)
}

/// Which side of binrw an attribute speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Read,
    Write,
    Both,
}

/// One binrw directive: `little`, `count = n`, `if(cond)`, `import { kind: i32 }`.
struct Directive {
    side: Side,
    name: String,
    value: Value,
    span: Span,
}

enum Value {
    Flag,
    Eq(TokenStream),
    Paren(TokenStream),
    Brace(TokenStream),
}

impl Directive {
    /// The tokens after `=` or inside the group.
    fn tokens(&self) -> syn::Result<&TokenStream> {
        match &self.value {
            Value::Eq(tokens) | Value::Paren(tokens) | Value::Brace(tokens) => Ok(tokens),
            Value::Flag => Err(syn::Error::new(
                self.span,
                format!("`{}` needs a value", self.name),
            )),
        }
    }

    fn expr(&self) -> syn::Result<syn::Expr> {
        syn::parse2(self.tokens()?.clone())
    }
}

/// Splits tokens at the commas outside any group.
fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    let mut pieces = Vec::new();
    let mut piece = Vec::new();
    for token in tokens {
        match &token {
            TokenTree::Punct(punct) if punct.as_char() == ',' => {
                pieces.push(piece.drain(..).collect());
            }
            _ => piece.push(token),
        }
    }
    if !piece.is_empty() {
        pieces.push(piece.into_iter().collect());
    }
    pieces
}

/// The binrw directives of some attributes.
fn directives(attrs: &[Attribute]) -> syn::Result<Vec<Directive>> {
    let mut found = Vec::new();
    for attr in attrs {
        let side = match attr.path().get_ident().map(|i| i.to_string()).as_deref() {
            Some("br") => Side::Read,
            Some("bw") => Side::Write,
            Some("brw") => Side::Both,
            _ => continue,
        };
        let list = attr.meta.require_list()?;
        for piece in split_commas(list.tokens.clone()) {
            let span = piece
                .clone()
                .into_iter()
                .next()
                .map_or(list.span(), |t| t.span());
            let mut tokens = piece.into_iter();
            let name = match tokens.next() {
                Some(TokenTree::Ident(ident)) => ident.to_string(),
                _ => return Err(syn::Error::new(span, "a binrw directive name expected")),
            };
            let rest: Vec<TokenTree> = tokens.collect();
            let value = match rest.as_slice() {
                [] => Value::Flag,
                [TokenTree::Punct(eq), ..] if eq.as_char() == '=' => {
                    Value::Eq(rest[1..].iter().cloned().collect())
                }
                [TokenTree::Group(group)] if group.delimiter() == Delimiter::Parenthesis => {
                    Value::Paren(group.stream())
                }
                [TokenTree::Group(group)] if group.delimiter() == Delimiter::Brace => {
                    Value::Brace(group.stream())
                }
                _ => {
                    return Err(syn::Error::new(
                        span,
                        format!("cannot read the binrw directive `{name}`"),
                    ))
                }
            };
            found.push(Directive {
                side,
                name,
                value,
                span,
            });
        }
    }
    Ok(found)
}

/// Directives that move data in ways the reference does not describe.
const UNDESCRIBED: &[&str] = &[
    "pad_before",
    "pad_after",
    "align_before",
    "align_after",
    "seek_before",
    "pad_size_to",
    "restore_position",
    "offset",
    "offset_after",
    "is_little",
    "is_big",
    "map_stream",
];

fn undescribed(directive: &Directive) -> syn::Error {
    syn::Error::new(
        directive.span,
        format!(
            "#[describe] does not describe `{}` yet: the reference would show wrong positions",
            directive.name
        ),
    )
}

/// The doc comment of an item, one line per `///` line.
fn doc(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(meta) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: Lit::Str(text),
                ..
            }) = &meta.value
            {
                let line = text.value();
                lines.push(line.strip_prefix(' ').unwrap_or(&line).to_string());
            }
        }
    }
    lines.join("\n").trim().to_string()
}

/// Whether binrw reads the item (else it only writes it).
fn reads(attrs: &[Attribute]) -> bool {
    let mut reads = None;
    for attr in attrs {
        let last = attr.path().segments.last().map(|s| s.ident.to_string());
        match last.as_deref() {
            Some("binrw" | "binread") => reads = Some(true),
            Some("binwrite") => {
                reads.get_or_insert(false);
            }
            Some("derive") => {
                let text = attr.meta.to_token_stream().to_string();
                if text.contains("BinRead") {
                    reads = Some(true);
                } else if text.contains("BinWrite") {
                    reads.get_or_insert(false);
                }
            }
            _ => {}
        }
    }
    reads.unwrap_or(true)
}

/// Keeps the directives that describe what is on disk: read-side ones when binrw reads the
/// item, write-side ones when it only writes it; `brw` always.
fn layout_side(reads: bool, side: Side) -> bool {
    match side {
        Side::Both => true,
        Side::Read => reads,
        Side::Write => !reads,
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let r = runtime();
    let reads = reads(&input.attrs);
    let ident = &input.ident;
    let doc = doc(&input.attrs);
    let const_params: Vec<String> = input
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Const(param) => Some(param.ident.to_string()),
            _ => None,
        })
        .collect();
    let shown_params: Vec<String> = input
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Const(param) => Some(param.ident.to_string()),
            GenericParam::Type(param) => Some(param.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let name = if shown_params.is_empty() {
        ident.to_string()
    } else {
        format!("{ident}<{}>", shown_params.join(", "))
    };

    let mut endian = None;
    let mut magic = None;
    let mut imports = Vec::new();
    let mut asserts = Vec::new();
    let mut mapped = None;
    let mut repr = None;
    for directive in directives(&input.attrs)? {
        if UNDESCRIBED.contains(&directive.name.as_str()) {
            return Err(undescribed(&directive));
        }
        if !layout_side(reads, directive.side) {
            continue;
        }
        match directive.name.as_str() {
            "little" | "big" => endian = Some(directive.name.clone()),
            "magic" => magic = Some(magic_field(&directive)?),
            "import" => imports = import_list(directive.tokens()?)?,
            "import_raw" => {
                let ty = text::expr(directive.tokens()?);
                imports.push(quote!(#r::Import { name: "(raw)".into(), ty: #ty.into() }));
            }
            "assert" | "pre_assert" => asserts.push(first_text(directive.tokens()?)),
            "map" | "try_map" => mapped = Some(read_as(&directive, reads)?),
            "repr" => {
                let ty: Type = syn::parse2(directive.tokens()?.clone())?;
                repr = Some(ty);
            }
            _ => {}
        }
    }

    let body = if let Some((disk, via)) = mapped {
        let variants = match &input.data {
            Data::Enum(data) => data
                .variants
                .iter()
                .map(|v| unit_variant(v, None))
                .collect(),
            _ => Vec::new(),
        };
        quote!(#r::Body::Mapped {
            read_as: #r::ReadAs { disk: #disk, via: #via.into() },
            variants: vec![#(#variants),*],
        })
    } else if let Some(repr) = repr {
        let Data::Enum(data) = &input.data else {
            return Err(syn::Error::new_spanned(ident, "`repr` on a struct"));
        };
        let variants: Vec<TokenStream> = data
            .variants
            .iter()
            .map(|v| {
                let discriminant = v
                    .discriminant
                    .as_ref()
                    .map(|(_, expr)| text::expr(&expr.to_token_stream()));
                unit_variant(v, discriminant)
            })
            .collect();
        let repr_text = text::ty(&repr.to_token_stream());
        quote!(#r::Body::Repr {
            read_as: #r::ReadAs { disk: #r::disk::<#repr>(#repr_text), via: "repr".into() },
            variants: vec![#(#variants),*],
        })
    } else {
        match &input.data {
            Data::Struct(data) => {
                let mut fields = Vec::new();
                if let Some(magic) = magic.take() {
                    fields.push(magic);
                }
                fields.extend(field_list(&data.fields, reads, &const_params)?);
                quote!(#r::Body::Fields { fields: vec![#(#fields),*] })
            }
            Data::Enum(data) => {
                let mut variants = Vec::new();
                for variant in &data.variants {
                    variants.push(variant_tokens(variant, reads, &const_params)?);
                }
                quote!(#r::Body::Variants { variants: vec![#(#variants),*] })
            }
            Data::Union(_) => {
                return Err(syn::Error::new_spanned(ident, "binrw has no unions"));
            }
        }
    };
    // A struct-level magic of a mapped or repr item is still read first.
    let magic_note = match magic {
        Some(field) => quote!(structure.magic = Some(#field);),
        None => quote!(),
    };
    let endian = match endian {
        Some(endian) => quote!(Some(#endian.into())),
        None => quote!(None),
    };

    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(#r::OnDisk));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident_text = ident.to_string();
    // Behind the schema's `reference` feature: without it, nothing of the reference is built.
    Ok(quote! {
        #[cfg(feature = "reference")]
        impl #impl_generics #r::Describe for #ident #ty_generics #where_clause {
            fn describe_as(symbolic: bool) -> #r::Structure {
                let _ = symbolic;
                let mut structure = #r::Structure::new(#ident_text, #name, #doc, #body);
                structure.endian = #endian;
                structure.imports = vec![#(#imports),*];
                structure.asserts = vec![#(#asserts.into()),*];
                #magic_note
                structure.finish()
            }
        }

        #[cfg(feature = "reference")]
        impl #impl_generics #r::OnDisk for #ident #ty_generics #where_clause {
            fn size() -> #r::Size {
                <Self as #r::Describe>::describe_as(false).size
            }

            fn link() -> Option<&'static str> {
                Some(#ident_text)
            }

            fn structure() -> Option<#r::Structure> {
                Some(<Self as #r::Describe>::describe_as(false))
            }
        }
    })
}

/// The text of the first comma-separated piece (an assertion's condition, not its error).
fn first_text(tokens: &TokenStream) -> String {
    split_commas(tokens.clone())
        .first()
        .map(text::expr)
        .unwrap_or_default()
}

/// `import { kind: i32 }` or `import(kind: i32, ...)`.
fn import_list(tokens: &TokenStream) -> syn::Result<Vec<TokenStream>> {
    let r = runtime();
    let mut imports = Vec::new();
    for piece in split_commas(tokens.clone()) {
        let mut parts = piece.into_iter();
        let name = match parts.next() {
            Some(TokenTree::Ident(ident)) => ident.to_string(),
            other => {
                return Err(syn::Error::new(
                    other.map_or(Span::call_site(), |t| t.span()),
                    "an import name expected",
                ))
            }
        };
        // Skip the `:`.
        let ty: TokenStream = parts.skip(1).collect();
        let ty = text::ty(&ty);
        imports.push(quote!(#r::Import { name: #name.into(), ty: #ty.into() }));
    }
    Ok(imports)
}

/// The magic bytes in front of a structure, as a field.
fn magic_field(directive: &Directive) -> syn::Result<TokenStream> {
    let r = runtime();
    let lit: Lit = syn::parse2(directive.tokens()?.clone())?;
    let text = text::expr(&lit.to_token_stream());
    let size: usize = match &lit {
        Lit::ByteStr(bytes) => bytes.value().len(),
        Lit::Byte(_) => 1,
        Lit::Int(int) => match int.suffix() {
            "u8" | "i8" => 1,
            "u16" | "i16" => 2,
            "u32" | "i32" | "f32" => 4,
            "u64" | "i64" | "f64" => 8,
            "u128" | "i128" => 16,
            _ => {
                return Err(syn::Error::new_spanned(
                    lit,
                    "a magic number needs a type suffix (binrw reads it as that type)",
                ))
            }
        },
        _ => {
            return Err(syn::Error::new_spanned(
                lit,
                "#[describe] knows byte strings and typed integers as magic",
            ))
        }
    };
    let size = size as u64;
    Ok(quote!(#r::Field::magic(#text, #size)))
}

/// `map = f` / `try_map = f`: the on-disk type and the function's text.
fn read_as(directive: &Directive, reads: bool) -> syn::Result<(TokenStream, String)> {
    let r = runtime();
    let expr = directive.expr()?;
    let via = text::expr(&expr.to_token_stream());
    let disk = match &expr {
        syn::Expr::Closure(closure) if reads => {
            let [syn::Pat::Type(arg)] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
                return Err(syn::Error::new_spanned(
                    closure,
                    "#[describe] needs the closure's argument type written out \
                     (`|v: i32| ...`): it is the type on disk",
                ));
            };
            let ty = &arg.ty;
            let ty_text = text::ty(&ty.to_token_stream());
            quote!(#r::disk::<#ty>(#ty_text))
        }
        // Writing: the value written is what the function returns.
        _ if !reads => quote!(#r::returned_disk(#expr)),
        _ => quote!(#r::argument_disk(#expr)),
    };
    Ok((disk, via))
}

/// A variant of a mapped or `repr` enum: a name, a value and a doc comment, no fields.
fn unit_variant(variant: &syn::Variant, discriminant: Option<String>) -> TokenStream {
    let r = runtime();
    let name = variant.ident.to_string();
    let doc = doc(&variant.attrs);
    let discriminant = match discriminant {
        Some(text) => quote!(Some(#text.into())),
        None => quote!(None),
    };
    quote!(#r::Variant::new(#name, #doc, #discriminant, None, vec![]))
}

fn variant_tokens(
    variant: &syn::Variant,
    reads: bool,
    const_params: &[String],
) -> syn::Result<TokenStream> {
    let r = runtime();
    let name = variant.ident.to_string();
    let doc = doc(&variant.attrs);
    let mut condition = quote!(None);
    let mut fields = Vec::new();
    for directive in directives(&variant.attrs)? {
        if UNDESCRIBED.contains(&directive.name.as_str()) {
            return Err(undescribed(&directive));
        }
        if !layout_side(reads, directive.side) {
            continue;
        }
        match directive.name.as_str() {
            "pre_assert" => {
                let pieces = split_commas(directive.tokens()?.clone());
                let cond: syn::Expr = syn::parse2(pieces.into_iter().next().unwrap_or_default())?;
                let cond = condition_tokens(quote!(PreAssert), &cond);
                condition = quote!(Some(#cond));
            }
            "magic" => fields.push(magic_field(&directive)?),
            _ => {}
        }
    }
    fields.extend(field_list(&variant.fields, reads, const_params)?);
    Ok(quote!(#r::Variant::new(#name, #doc, None, #condition, vec![#(#fields),*])))
}

fn condition_tokens(kind: TokenStream, expr: &syn::Expr) -> TokenStream {
    let r = runtime();
    let text = text::expr(&expr.to_token_stream());
    let tree = expr_tree(expr);
    quote!(#r::Condition { kind: #r::ConditionKind::#kind, text: #text.into(), expr: #tree })
}

/// The fields of a struct or variant that are on disk, in order.
fn field_list(
    fields: &Fields,
    reads: bool,
    const_params: &[String],
) -> syn::Result<Vec<TokenStream>> {
    let mut list = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let name = field
            .ident
            .as_ref()
            .map_or_else(|| index.to_string(), |ident| ident.to_string());
        if let Some(tokens) = field_tokens(&name, field, reads, const_params)? {
            list.push(tokens);
        }
    }
    Ok(list)
}

/// One field's description, or `None` for a field that is not on disk (`ignore`, read-side
/// `calc`, `default`).
fn field_tokens(
    name: &str,
    field: &syn::Field,
    reads: bool,
    const_params: &[String],
) -> syn::Result<Option<TokenStream>> {
    let r = runtime();
    let ty = &field.ty;
    let ty_text = text::ty(&ty.to_token_stream());
    let doc = doc(&field.attrs);

    let mut disk = None;
    let mut read_as_via = None;
    let mut setup = Vec::new();
    let mut size_change = quote!();
    // Read (or written) by a function of its own: no size to ask the type for.
    let mut custom = None;
    for directive in directives(&field.attrs)? {
        if UNDESCRIBED.contains(&directive.name.as_str()) {
            return Err(undescribed(&directive));
        }
        let layout = layout_side(reads, directive.side);
        match (directive.name.as_str(), layout) {
            ("ignore" | "default", true) => return Ok(None),
            ("calc" | "try_calc", true) if reads => return Ok(None),
            ("calc" | "try_calc", _) => {
                let text = text::expr(directive.tokens()?);
                setup.push(quote!(field.written_as = Some(#text.into());));
            }
            ("map" | "try_map", true) => {
                let (found, via) = read_as(&directive, reads)?;
                disk = Some(found);
                read_as_via = Some(via);
            }
            ("if", true) => {
                let pieces = split_commas(directive.tokens()?.clone());
                let cond: syn::Expr = syn::parse2(pieces.into_iter().next().unwrap_or_default())?;
                let cond = condition_tokens(quote!(If), &cond);
                setup.push(quote!(field.condition = Some(#cond);));
            }
            ("try", true) => setup.push(quote!(field.try_read = true;)),
            ("temp", true) => setup.push(quote!(field.temp = true;)),
            ("count", true) => {
                let expr = directive.expr()?;
                let tree = expr_tree(&expr);
                let text = text::expr(&expr.to_token_stream());
                size_change = quote!(field.size = #r::Size::count(#r::Count { text: #text.into(), expr: #tree }, field.size););
            }
            ("parse_with" | "write_with", true) => {
                let expr = directive.expr()?;
                let function = match &expr {
                    syn::Expr::Call(call) => last_segment(&call.func),
                    other => last_segment(other),
                };
                match function.as_deref() {
                    Some("when") if directive.name == "parse_with" => {
                        let syn::Expr::Call(call) = &expr else {
                            unreachable!("`when` was found as a call")
                        };
                        let cond = call.args.first().ok_or_else(|| {
                            syn::Error::new_spanned(call, "`when` takes the condition")
                        })?;
                        let cond = condition_tokens(quote!(When), cond);
                        setup.push(quote!(field.condition = Some(#cond);));
                    }
                    Some("until_eof" | "cast_rest") if directive.name == "parse_with" => {
                        size_change = quote!(field.size = #r::Size::rest(field.size););
                    }
                    _ => custom = Some(text::expr(&expr.to_token_stream())),
                }
            }
            ("args", true) => {
                let args = arg_list(&directive)?;
                setup.push(quote!(field.args = vec![#(#args),*];));
            }
            ("assert", true) => {
                let text = first_text(directive.tokens()?);
                setup.push(quote!(field.asserts.push(#text.into());));
            }
            ("little" | "big", true) => {
                let endian = directive.name.clone();
                setup.push(quote!(field.endian = Some(#endian.into());));
            }
            ("magic", true) => {
                return Err(syn::Error::new(
                    directive.span,
                    "#[describe] does not describe field magic yet",
                ))
            }
            _ => {}
        }
    }

    let disk = match (disk, custom) {
        (Some(disk), _) => disk,
        (None, Some(function)) => quote!(#r::custom_disk(#ty_text, #function)),
        (None, None) => {
            // An array whose length is a const parameter: shown as `N` elements.
            if let Type::Array(array) = ty {
                let len = text::expr(&array.len.to_token_stream());
                if const_params.contains(&len) {
                    let elem = &array.elem;
                    setup.push(quote!(if symbolic {
                        field.size = #r::Size::count(
                            #r::Count { text: #len.into(), expr: #r::Expr::Other(#len.into()) },
                            <#elem as #r::OnDisk>::size(),
                        );
                    }));
                }
            }
            quote!(#r::disk::<#ty>(#ty_text))
        }
    };
    let read_as_via = match read_as_via {
        Some(via) => quote!(Some(#via.into())),
        None => quote!(None),
    };
    Ok(Some(quote!({
        let mut field = #r::Field::new(#name, #ty_text, #doc, #disk, #read_as_via);
        #size_change
        #(#setup)*
        field
    })))
}

/// `args { name: expr, ... }` or `args(expr, ...)`.
fn arg_list(directive: &Directive) -> syn::Result<Vec<TokenStream>> {
    let r = runtime();
    let mut args = Vec::new();
    let named = matches!(directive.value, Value::Brace(_));
    for (index, piece) in split_commas(directive.tokens()?.clone())
        .into_iter()
        .enumerate()
    {
        let tokens: Vec<TokenTree> = piece.into_iter().collect();
        let (name, value): (String, TokenStream) = match tokens.as_slice() {
            [TokenTree::Ident(name), TokenTree::Punct(colon), rest @ ..]
                if named && colon.as_char() == ':' =>
            {
                (name.to_string(), rest.iter().cloned().collect())
            }
            [TokenTree::Ident(name)] if named => (name.to_string(), name.to_token_stream()),
            _ => (index.to_string(), tokens.iter().cloned().collect()),
        };
        let text = text::expr(&value);
        let tree = match syn::parse2::<syn::Expr>(value) {
            Ok(expr) => expr_tree(&expr),
            Err(_) => quote!(#r::Expr::Other(#text.into())),
        };
        args.push(quote!(#r::Arg { name: #name.into(), text: #text.into(), expr: #tree }));
    }
    Ok(args)
}

/// The last segment of a path expression (`until_eof` of `binrw::helpers::until_eof`).
fn last_segment(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// `a.b.c` as `["a", "b", "c"]`, for paths of fields.
fn field_path(expr: &syn::Expr) -> Option<Vec<String>> {
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() => {
            let ident = path.path.get_ident()?;
            Some(vec![ident.to_string()])
        }
        syn::Expr::Field(field) => {
            let mut path = field_path(&field.base)?;
            match &field.member {
                syn::Member::Named(ident) => path.push(ident.to_string()),
                syn::Member::Unnamed(index) => path.push(index.index.to_string()),
            }
            Some(path)
        }
        _ => None,
    }
}

/// The tree of an expression the reference can evaluate; `Expr::Other` with the text for
/// anything else.
fn expr_tree(expr: &syn::Expr) -> TokenStream {
    let r = runtime();
    let other = || {
        let text = text::expr(&expr.to_token_stream());
        quote!(#r::Expr::Other(#text.into()))
    };
    let path_tokens = |path: Vec<String>| quote!(vec![#(#path.into()),*]);
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            Lit::Int(int) => match int.base10_parse::<i64>() {
                Ok(value) => quote!(#r::Expr::Int(#value)),
                Err(_) => other(),
            },
            Lit::Bool(value) => {
                let value = value.value;
                quote!(#r::Expr::Bool(#value))
            }
            _ => other(),
        },
        syn::Expr::Path(path) if path.qself.is_none() => match field_path(expr) {
            Some(path) => {
                let path = path_tokens(path);
                quote!(#r::Expr::Field(#path))
            }
            None => {
                let text = text::expr(&path.to_token_stream());
                quote!(#r::Expr::Const(#text.into()))
            }
        },
        syn::Expr::Field(_) => match field_path(expr) {
            Some(path) => {
                let path = path_tokens(path);
                quote!(#r::Expr::Field(#path))
            }
            None => other(),
        },
        syn::Expr::Binary(binary) => {
            let op = binary.op.to_token_stream().to_string();
            let known = [
                "==", "!=", "<", "<=", ">", ">=", "&&", "||", "+", "-", "*", "/", "%",
            ];
            if !known.contains(&op.as_str()) {
                return other();
            }
            let left = expr_tree(&binary.left);
            let right = expr_tree(&binary.right);
            quote!(#r::Expr::binary(#op, #left, #right))
        }
        syn::Expr::Unary(unary) => match unary.op {
            syn::UnOp::Not(_) => {
                let inner = expr_tree(&unary.expr);
                quote!(#r::Expr::Not(Box::new(#inner)))
            }
            syn::UnOp::Neg(_) => match &*unary.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(int), ..
                }) => match int.base10_parse::<i64>() {
                    Ok(value) => {
                        let value = -value;
                        quote!(#r::Expr::Int(#value))
                    }
                    Err(_) => other(),
                },
                _ => other(),
            },
            _ => other(),
        },
        syn::Expr::Paren(paren) => {
            let inner = expr_tree(&paren.expr);
            quote!(#r::Expr::Paren(Box::new(#inner)))
        }
        // A value a `macro_rules!` registry passed in (an invisible group).
        syn::Expr::Group(group) => expr_tree(&group.expr),
        syn::Expr::MethodCall(call) if call.args.is_empty() => {
            let Some(path) = field_path(&call.receiver) else {
                return other();
            };
            let path = path_tokens(path);
            match call.method.to_string().as_str() {
                "is_some" => quote!(#r::Expr::IsSome(#path)),
                "is_none" => quote!(#r::Expr::IsNone(#path)),
                _ => other(),
            }
        }
        syn::Expr::Macro(mac) if mac.mac.path.is_ident("matches") => {
            let parsed = (|input: syn::parse::ParseStream| {
                let value: syn::Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let pattern = syn::Pat::parse_multi(input)?;
                Ok((value, pattern))
            })
            .parse2(mac.mac.tokens.clone());
            let Ok((value, pattern)) = parsed else {
                return other();
            };
            let cases: Option<Vec<i64>> = match &pattern {
                syn::Pat::Or(or) => or.cases.iter().map(int_pattern).collect(),
                single => int_pattern(single).map(|v| vec![v]),
            };
            match cases {
                Some(cases) => {
                    let value = expr_tree(&value);
                    quote!(#r::Expr::Matches(Box::new(#value), vec![#(#cases),*]))
                }
                None => other(),
            }
        }
        _ => other(),
    }
}

/// The value of an integer literal pattern.
fn int_pattern(pattern: &syn::Pat) -> Option<i64> {
    match pattern {
        syn::Pat::Lit(syn::ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        // A literal a `macro_rules!` registry passed in, inside an invisible group.
        other => other.to_token_stream().to_string().trim().parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_tokens(tokens: TokenStream) -> syn::Result<String> {
        expand(&syn::parse2(tokens).unwrap()).map(|out| out.to_string())
    }

    #[test]
    fn conditional_options_are_left_out_of_renderings_when_absent() {
        let mut input: DeriveInput = syn::parse2(quote! {
            #[derive(Debug, Serialize)]
            struct Item {
                version: i32,
                #[br(parse_with = when(version >= 2))]
                added: Option<i32>,
                #[br(if(version >= 3))]
                #[serde(skip_serializing_if = "is_zero")]
                said: Option<i32>,
                always: Option<i32>,
            }
        })
        .unwrap();
        skip_absent_fields(&mut input);
        let syn::Data::Struct(data) = &input.data else {
            unreachable!()
        };
        let skips: Vec<usize> = data
            .fields
            .iter()
            .map(|field| {
                (field.attrs.iter())
                    .filter(|a| a.to_token_stream().to_string().contains("Option::is_none"))
                    .count()
            })
            .collect();
        assert_eq!(skips, [0, 1, 0, 0]);
    }

    /// The same when serde is the schema's optional feature: the derive sits in a `cfg_attr`,
    /// and so does the attribute added.
    #[test]
    fn conditional_options_behind_the_serde_feature() {
        let mut input: DeriveInput = syn::parse2(quote! {
            #[derive(Debug)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize))]
            struct Item {
                version: i32,
                #[br(parse_with = when(version >= 2))]
                added: Option<i32>,
                #[br(if(version >= 3))]
                #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
                said: Option<i32>,
            }
        })
        .unwrap();
        skip_absent_fields(&mut input);
        let syn::Data::Struct(data) = &input.data else {
            unreachable!()
        };
        let added: Vec<String> = data
            .fields
            .iter()
            .flat_map(|field| &field.attrs)
            .map(|a| a.to_token_stream().to_string())
            .filter(|a| a.contains("Option::is_none"))
            .collect();
        assert_eq!(
            added,
            ["# [cfg_attr (feature = \"serde\" , serde (skip_serializing_if = \"Option::is_none\"))]"]
        );
    }

    #[test]
    fn conditions_counts_and_maps_come_from_the_attributes() {
        let out = expand_tokens(quote! {
            /// A test structure.
            #[binrw]
            #[brw(little, magic = b"AB")]
            #[br(import { kind: i32 })]
            struct Example {
                version: i32,
                #[br(parse_with = when(version >= 2 && kind == 3))]
                extension: Option<i32>,
                #[br(map = |v: u16| Flags::from(v))]
                flags: Flags,
                #[br(count = version * 2)]
                list: Vec<u8>,
                #[br(parse_with = binrw::helpers::until_eof)]
                unknown_tail: Vec<i32>,
            }
        })
        .unwrap();
        for expected in [
            "\"A test structure.\"",
            "Field :: magic (\"b\\\"AB\\\"\" , 2u64)",
            "Import { name : \"kind\" . into () , ty : \"i32\" . into () }",
            "ConditionKind :: When , text : \"version >= 2 && kind == 3\"",
            "disk :: < u16 > (\"u16\")",
            "Some (\"|v: u16| Flags::from(v)\" . into ())",
            "text : \"version * 2\"",
            "Size :: rest (field . size)",
        ] {
            assert!(out.contains(expected), "{expected} in {out}");
        }
    }

    #[test]
    fn what_it_cannot_describe_is_an_error() {
        let untyped = expand_tokens(quote! {
            #[binrw]
            struct A { #[br(map = |v| v + 1)] a: i32 }
        });
        assert!(untyped
            .unwrap_err()
            .to_string()
            .contains("argument type written out"));
        let padded = expand_tokens(quote! {
            #[binrw]
            struct B { #[br(pad_before = 4)] b: i32 }
        });
        assert!(padded.unwrap_err().to_string().contains("`pad_before`"));
        let untyped_magic = expand_tokens(quote! {
            #[binrw]
            #[br(magic = 1)]
            struct C { c: i32 }
        });
        assert!(untyped_magic
            .unwrap_err()
            .to_string()
            .contains("type suffix"));
    }

    #[test]
    fn write_only_structures_use_the_write_side() {
        let out = expand_tokens(quote! {
            #[binwrite]
            struct W {
                #[bw(map = |m: &Magic| m.bytes())]
                magic: Magic,
                #[bw(ignore)]
                skipped: bool,
                #[bw(calc = 4)]
                size: i32,
            }
        })
        .unwrap();
        assert!(out.contains("returned_disk"), "{out}");
        assert!(!out.contains("\"skipped\""), "{out}");
        assert!(out.contains("written_as = Some (\"4\""), "{out}");
    }
}
