//! `#[derive(Blank)]`, `#[status_counters]`, `#[registers]` and `#[locals]` for rust-hdl blocks.
//!
//! rust-hdl's `Constant` has no `Default` (its value must be chosen), so a block holding one
//! cannot derive `Default`, and its constructor would have to name every port, register and
//! sub-block just to default it. `Blank` gives the block an inherent `blank()` with every field
//! at `Default::default()`, every `Constant` zero and every `ROM` empty; a constructor names only what differs:
//!
//! ```ignore
//! #[derive(LogicBlock, Blank)]
//! pub struct Deparser { pub clock: Signal<In, Clock>, ip_protocol: Constant<Bits<8>>, … }
//!
//! impl Deparser {
//!     pub fn new(ip_protocol: u8) -> Self {
//!         Self { ip_protocol: Constant::new((ip_protocol as u64).into()), ..Self::blank() }
//!     }
//! }
//! ```
//! A block without constants or parameters derives `Default` instead.

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::{parse_macro_input, Data, DeriveInput, Fields, Type};

/// An inherent `blank()`: every field at its default, every `Constant` and
/// `DFFWithInit` zero, every `ROM` empty.
#[proc_macro_derive(Blank)]
pub fn derive_blank(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let name = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let Data::Struct(data) = &input.data else {
        return syn::Error::new_spanned(name, "Blank is for structs").to_compile_error().into();
    };
    let Fields::Named(fields) = &data.fields else {
        return syn::Error::new_spanned(name, "Blank is for structs with named fields").to_compile_error().into();
    };
    let inits = fields.named.iter().map(|field| {
        let ident = field.ident.as_ref().expect("named field");
        let init = blank_value(&field.ty);
        quote! { #ident: #init }
    });
    quote! {
        impl #impl_generics #name #type_generics #where_clause {
            /// Every port, register and sub-block at its default, every constant at zero: the
            /// starting point of this block's constructors.
            pub fn blank() -> Self {
                Self { #(#inits),* }
            }
        }
    }
    .into()
}

/// `Constant`, `ROM` and `DFFWithInit` have no `Default` (their contents must be chosen): zero,
/// empty and zero; an
/// array gets a blank element each; everything else its `Default`.
fn blank_value(ty: &Type) -> proc_macro2::TokenStream {
    match ty {
        Type::Array(array) => {
            let element = blank_value(&array.elem);
            quote! { ::core::array::from_fn(|_| #element) }
        }
        Type::Path(path) if ["Constant", "ROM", "DFFWithInit"].iter().any(|name| last_segment_is(path, name)) => {
            quote! { <#ty>::new(::core::default::Default::default()) }
        }
        _ => quote! { ::core::default::Default::default() },
    }
}

fn last_segment_is(path: &syn::TypePath, name: &str) -> bool {
    path.path.segments.last().is_some_and(|segment| segment.ident == name)
}

/// `#[status_counters]`, placed above `#[hdl_gen]` on a block's `update`: expands every
/// statement `status_counters!(self, clock, reset, a, b, …);` at the top level of the body into
/// what rust-hdl's generator understands: `clock!(self, clock, a, b, …);` and, for each counter,
/// `self.a.reset.next = self.reset.val(); self.a.increment.next = false;` — the counter is
/// clocked, reset with the block and counts only where the block raises `increment` later in the
/// body. (The generator accepts no macro of its own beyond `dff_setup!` and `clock!`, so the
/// expansion happens before it sees the body.)
#[proc_macro_attribute]
pub fn status_counters(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut function = parse_macro_input!(item as syn::ImplItemFn);
    let mut statements = Vec::with_capacity(function.block.stmts.len());
    for statement in std::mem::take(&mut function.block.stmts) {
        let syn::Stmt::Macro(invocation) = &statement else {
            statements.push(statement);
            continue;
        };
        if !invocation.mac.path.is_ident("status_counters") {
            statements.push(statement);
            continue;
        }
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let arguments = match invocation.mac.parse_body_with(parser) {
            Ok(arguments) => arguments.into_iter().collect::<Vec<_>>(),
            Err(error) => return error.to_compile_error().into(),
        };
        let [me, clock, reset, counters @ ..] = arguments.as_slice() else {
            return syn::Error::new_spanned(&invocation.mac, "status_counters!(self, clock, reset, counter, …)").to_compile_error().into();
        };
        if counters.is_empty() {
            return syn::Error::new_spanned(&invocation.mac, "status_counters! names at least one counter").to_compile_error().into();
        }
        statements.push(syn::parse_quote! { clock!(#me, #clock, #(#counters),*); });
        for counter in counters {
            statements.push(syn::parse_quote! { #me.#counter.reset.next = #me.#reset.val(); });
            statements.push(syn::parse_quote! { #me.#counter.increment.next = false; });
        }
    }
    function.block.stmts = statements;
    quote! { #function }.into()
}

/// One group of a `#[locals(…)]` or `#[registers(…)]` list: `a, b, c: Type`, after any doc
/// comment, which documents every field of the group.
struct FieldGroup {
    docs: Vec<syn::Attribute>,
    names: Vec<syn::Ident>,
    ty: Type,
}

impl syn::parse::Parse for FieldGroup {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let docs = input.call(syn::Attribute::parse_outer)?;
        let mut names = vec![input.parse::<syn::Ident>()?];
        while input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
            names.push(input.parse()?);
        }
        input.parse::<syn::Token![:]>()?;
        Ok(Self { docs, names, ty: input.parse()? })
    }
}

/// Appends one private field per listed name to a block's struct, each of type `wrap<Type>`.
fn append_fields(attr: TokenStream, item: TokenStream, wrap: impl Fn(&Type) -> Type) -> TokenStream {
    let parser = syn::punctuated::Punctuated::<FieldGroup, syn::Token![;]>::parse_terminated;
    let groups = match parser.parse(attr) {
        Ok(groups) => groups,
        Err(error) => return error.to_compile_error().into(),
    };
    let mut block = parse_macro_input!(item as DeriveInput);
    let Data::Struct(data) = &mut block.data else {
        return syn::Error::new_spanned(&block.ident, "fields are appended to a struct only").to_compile_error().into();
    };
    let Fields::Named(fields) = &mut data.fields else {
        return syn::Error::new_spanned(&block.ident, "fields are appended to a struct with named fields only").to_compile_error().into();
    };
    for group in &groups {
        let (ty, docs) = (wrap(&group.ty), &group.docs);
        for name in &group.names {
            fields.named.push(syn::Field::parse_named.parse2(quote! { #(#docs)* #name: #ty }).expect("a named field"));
        }
    }
    quote! { #block }.into()
}

/// Declares a block's local signals compactly, as Verilog declares wires: the attribute
/// `#[locals(a, b: Bit; sum: Bits<17>)]` above `#[derive(LogicBlock, …)]` appends the fields
/// `a: Signal<Local, Bit>, b: Signal<Local, Bit>, sum: Signal<Local, Bits<17>>` to the struct, in
/// the order listed, after the fields written out. A doc comment before a group documents each of
/// its fields.
#[proc_macro_attribute]
pub fn locals(attr: TokenStream, item: TokenStream) -> TokenStream {
    append_fields(attr, item, |ty| syn::parse_quote! { Signal<Local, #ty> })
}

/// Declares a block's plain registers compactly: `#[registers(valid, last: Bit; key: Bits<64>)]`
/// appends `valid: DFF<Bit>, last: DFF<Bit>, key: DFF<Bits<64>>` to the struct, in the order listed,
/// after the fields written out (and before those of a `#[locals]` below it). A doc comment before
/// a group documents each of its fields.
#[proc_macro_attribute]
pub fn registers(attr: TokenStream, item: TokenStream) -> TokenStream {
    append_fields(attr, item, |ty| syn::parse_quote! { DFF<#ty> })
}
