//! Tokens back to the text an author would write: `version >= 2 && clip.is_some()`,
//! `Option<I32String<3>>`, not the spaced-out `version >= 2 && clip . is_some ()` that
//! `TokenStream::to_string` gives. The reference shows this text, so it must not depend on how
//! the source was formatted.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The text of an expression.
pub fn expr(tokens: &TokenStream) -> String {
    print(tokens, false)
}

/// The text of a type: no spaces around `<` and `>`.
pub fn ty(tokens: &TokenStream) -> String {
    print(tokens, true)
}

fn print(tokens: &TokenStream, ty: bool) -> String {
    let mut printer = Printer {
        out: String::new(),
        prev: Prev::Start,
        ty,
        in_params: false,
    };
    printer.tokens(tokens.clone());
    printer.out
}

/// What came last, which decides the space in front of what comes next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Nothing yet (or just inside a group).
    Start,
    /// An identifier or literal.
    Word,
    /// A closed group.
    Group,
    /// `.`
    Dot,
    /// `,` or `;`
    Separator,
    /// A `:` of a type ascription.
    Colon,
    /// `::` or its first half, or the first char of `>=`, `&&`, ...: nothing follows with a
    /// space.
    Glued,
    /// A binary operator.
    Operator,
    /// A prefix operator (`!x`, `&x`, `-1`).
    Unary,
    /// The `!` of a macro call.
    Bang,
    /// The `|` opening closure parameters.
    ClosureOpen,
    /// The `|` closing them (or `||`).
    ClosureClose,
    /// The `'` of a lifetime.
    Quote,
    /// The name of a lifetime.
    Lifetime,
    /// `<` in a type.
    Angle,
}

struct Printer {
    out: String,
    prev: Prev,
    ty: bool,
    in_params: bool,
}

impl Printer {
    fn tokens(&mut self, tokens: TokenStream) {
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                TokenTree::Ident(ident) => {
                    let lifetime = self.prev == Prev::Quote;
                    self.word(&ident.to_string());
                    if lifetime {
                        self.prev = Prev::Lifetime;
                    }
                }
                TokenTree::Literal(literal) => self.word(&literal.to_string()),
                TokenTree::Group(group) => self.group(group.delimiter(), group.stream()),
                TokenTree::Punct(punct) => {
                    let next_is_punct = matches!(tokens.peek(), Some(TokenTree::Punct(_)));
                    self.punct(punct.as_char(), punct.spacing(), next_is_punct);
                }
            }
        }
    }

    /// Whether an operand is expected here (so `!`, `&`, `-`, `|` start one).
    fn operand_expected(&self) -> bool {
        matches!(
            self.prev,
            Prev::Start
                | Prev::Separator
                | Prev::Colon
                | Prev::Operator
                | Prev::Unary
                | Prev::ClosureClose
                | Prev::Angle
        )
    }

    fn no_space_after(&self) -> bool {
        matches!(
            self.prev,
            Prev::Start
                | Prev::Dot
                | Prev::Glued
                | Prev::Unary
                | Prev::Bang
                | Prev::ClosureOpen
                | Prev::Quote
                | Prev::Angle
        )
    }

    fn space(&mut self) {
        if !self.no_space_after() {
            self.out.push(' ');
        }
    }

    fn word(&mut self, text: &str) {
        self.space();
        self.out.push_str(text);
        self.prev = Prev::Word;
    }

    fn group(&mut self, delimiter: Delimiter, inner: TokenStream) {
        let (open, close) = match delimiter {
            Delimiter::Parenthesis => ("(", ")"),
            Delimiter::Bracket => ("[", "]"),
            Delimiter::Brace => ("{ ", " }"),
            Delimiter::None => ("", ""),
        };
        let call = matches!(self.prev, Prev::Word | Prev::Group | Prev::Bang);
        if delimiter == Delimiter::Brace && self.prev == Prev::Bang {
            // `args! { sizes }`
            self.out.push(' ');
        } else if delimiter == Delimiter::Brace || !call {
            self.space();
        }
        let mut printer = Printer {
            out: String::new(),
            prev: Prev::Start,
            ty: self.ty,
            in_params: false,
        };
        printer.tokens(inner);
        if printer.out.is_empty() && delimiter == Delimiter::Brace {
            self.out.push_str("{}");
        } else {
            self.out.push_str(open);
            self.out.push_str(&printer.out);
            self.out.push_str(close);
        }
        self.prev = Prev::Group;
    }

    fn punct(&mut self, c: char, spacing: Spacing, next_is_punct: bool) {
        let joint = spacing == Spacing::Joint && next_is_punct;
        match c {
            '.' if !joint && self.prev != Prev::Glued => {
                self.out.push('.');
                self.prev = Prev::Dot;
                return;
            }
            ',' | ';' => {
                self.out.push(c);
                self.prev = Prev::Separator;
                return;
            }
            '?' => {
                self.out.push('?');
                self.prev = Prev::Word;
                return;
            }
            ':' => {
                if joint || self.prev == Prev::Glued && self.out.ends_with(':') {
                    // `::`: glued on both sides.
                    self.out.push(':');
                    self.prev = Prev::Glued;
                } else {
                    self.out.push(':');
                    self.prev = Prev::Colon;
                }
                return;
            }
            '\'' => {
                self.space();
                self.out.push('\'');
                self.prev = Prev::Quote;
                return;
            }
            '!' if self.prev == Prev::Word && !joint => {
                self.out.push('!');
                self.prev = Prev::Bang;
                return;
            }
            '|' if self.in_params => {
                self.out.push('|');
                self.in_params = false;
                self.prev = Prev::ClosureClose;
                return;
            }
            '|' if self.operand_expected() => {
                self.space();
                self.out.push('|');
                if joint {
                    // `||`: a closure without parameters; the second `|` closes it.
                    self.in_params = true;
                    self.prev = Prev::Glued;
                } else {
                    self.in_params = true;
                    self.prev = Prev::ClosureOpen;
                }
                return;
            }
            '<' if self.ty => {
                self.out.push('<');
                self.prev = Prev::Angle;
                return;
            }
            '>' if self.ty => {
                self.out.push('>');
                self.prev = Prev::Word;
                return;
            }
            '!' | '&' | '-' | '*' if self.operand_expected() && !joint => {
                self.space();
                self.out.push(c);
                self.prev = Prev::Unary;
                return;
            }
            _ => {}
        }
        self.space();
        self.out.push(c);
        self.prev = if joint { Prev::Glued } else { Prev::Operator };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn expressions_read_as_written() {
        let cases = [
            (quote!(version >= 2), "version >= 2"),
            (
                quote!(version >= 3 && clip.is_some()),
                "version >= 3 && clip.is_some()",
            ),
            (
                quote!(!matches!(kind, 2 | 3 | 9 | 10)),
                "!matches!(kind, 2 | 3 | 9 | 10)",
            ),
            (quote!(!bezier), "!bezier"),
            (quote!(version == Version::V4), "version == Version::V4"),
            (quote!(size / 4), "size / 4"),
            (
                quote!(size.map_or_else(|| sizes.size_of(type_id).unwrap_or(0), |s| s as usize)),
                "size.map_or_else(|| sizes.size_of(type_id).unwrap_or(0), |s| s as usize)",
            ),
            (
                quote!(|v: i32| LayerFlags::from_bytes(v.to_le_bytes())),
                "|v: i32| LayerFlags::from_bytes(v.to_le_bytes())",
            ),
            (quote!(binrw::args! { sizes }), "binrw::args! { sizes }"),
            (quote!(b"TWDEMO\0"), "b\"TWDEMO\\0\""),
            (quote!(-1), "-1"),
            (quote!(a - 1), "a - 1"),
            (quote!(header.version >= 6), "header.version >= 6"),
        ];
        for (tokens, text) in cases {
            assert_eq!(expr(&tokens), text);
        }
    }

    #[test]
    fn types_read_as_written() {
        let cases = [
            (quote!(Option<I32String<3>>), "Option<I32String<3>>"),
            (quote!([i32; 4]), "[i32; 4]"),
            (quote!(&'a [DataBlock<'a>]), "&'a [DataBlock<'a>]"),
            (quote!((i32, i32)), "(i32, i32)"),
            (quote!(Option<Vec<i32>>), "Option<Vec<i32>>"),
            (quote!(binrw::NullString), "binrw::NullString"),
        ];
        for (tokens, text) in cases {
            assert_eq!(ty(&tokens), text);
        }
    }
}
