//! `#[derive(Blank)]`, `#[status_counters]`, `#[forwards]`, `#[ports]`, `#[registers]` and `#[locals]` for rust-hdl blocks.
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
/// statement `status_counters!(self, clock, reset, a, b => b_count, …);` at the top level of the
/// body into what rust-hdl's generator understands: `clock!(self, clock, a, b, …);` and, for each
/// counter, `self.a.reset.next = self.reset.val(); self.a.increment.next = false;` — the counter
/// is clocked, reset with the block and counts only where the block raises `increment` later in
/// the body — and, for a counter named with `=> port`, `self.port.next = self.b.count.val();`
/// (the port may be a bundle's member: `b => counters.b_count`). (The generator accepts no macro
/// of its own beyond `dff_setup!` and `clock!`, so the expansion happens before it sees the body.)
#[proc_macro_attribute]
pub fn status_counters(_attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_statement_macro(item, "status_counters", |invocation, statements| {
        let CounterCall { me, clock, reset, counters } = invocation.mac.parse_body::<CounterCall>()?;
        if counters.is_empty() {
            return Err(syn::Error::new_spanned(&invocation.mac, "status_counters! names at least one counter"));
        }
        let names = counters.iter().map(|counter| &counter.name);
        statements.push(syn::parse_quote! { clock!(#me, #clock, #(#names),*); });
        for CounterArg { name, port } in &counters {
            statements.push(syn::parse_quote! { #me.#name.reset.next = #me.#reset.val(); });
            statements.push(syn::parse_quote! { #me.#name.increment.next = false; });
            if let Some(port) = port {
                statements.push(syn::parse_quote! { #me.#port.next = #me.#name.count.val(); });
            }
        }
        Ok(())
    })
}

/// Replaces every `name!(…);` statement of a block's `update` by the statements `expand` pushes
/// for it (the attributes' common walk; the other statements stay as they are).
fn expand_statement_macro(
    item: TokenStream,
    name: &str,
    expand: impl Fn(&syn::StmtMacro, &mut Vec<syn::Stmt>) -> syn::Result<()>,
) -> TokenStream {
    let mut function = parse_macro_input!(item as syn::ImplItemFn);
    let mut statements = Vec::with_capacity(function.block.stmts.len());
    for statement in std::mem::take(&mut function.block.stmts) {
        match &statement {
            syn::Stmt::Macro(invocation) if invocation.mac.path.is_ident(name) => {
                if let Err(error) = expand(invocation, &mut statements) {
                    return error.to_compile_error().into();
                }
            }
            _ => statements.push(statement),
        }
    }
    function.block.stmts = statements;
    quote! { #function }.into()
}

/// Expands `forward!(self.sub => a, b, …);` statements in a block's `update` into
/// `self.a.next = self.sub.a.val();` for each name: a sub-block's outputs driven out on the
/// block's ports of the same names; and `forward!(self.sub <= a, b, …);` into
/// `self.sub.a.next = self.a.val();`: the sub-block's inputs driven from the block's ports of the
/// same names. (As with [`macro@status_counters`], the expansion happens before `hdl_gen` sees
/// the body.)
#[proc_macro_attribute]
pub fn forwards(_attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_statement_macro(item, "forward", |invocation, statements| {
        let ForwardCall { me, sub, inward, ports } = invocation.mac.parse_body::<ForwardCall>()?;
        for port in &ports {
            statements.push(if inward {
                syn::parse_quote! { #me.#sub.#port.next = #me.#port.val(); }
            } else {
                syn::parse_quote! { #me.#port.next = #me.#sub.#port.val(); }
            });
        }
        Ok(())
    })
}

/// `forward!(self.sub => port, port, …)` (outputs out) or `forward!(self.sub <= port, …)` (inputs in).
struct ForwardCall {
    me: syn::Token![self],
    sub: syn::Ident,
    inward: bool,
    ports: Vec<syn::Ident>,
}

impl syn::parse::Parse for ForwardCall {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let usage = "forward!(self.sub => port, port, …) or forward!(self.sub <= port, port, …)";
        let me = input.parse()?;
        input.parse::<syn::Token![.]>()?;
        let sub = input.parse()?;
        let inward = if input.parse::<Option<syn::Token![<=]>>()?.is_some() {
            true
        } else {
            input.parse::<syn::Token![=>]>().map_err(|_| input.error(usage))?;
            false
        };
        let ports = syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated(input)?;
        if ports.is_empty() {
            return Err(input.error(usage));
        }
        Ok(Self { me, sub, inward, ports: ports.into_iter().collect() })
    }
}

/// `status_counters!(self, clock, reset, counter, counter => port, …)`.
struct CounterCall {
    me: syn::Token![self],
    clock: syn::Ident,
    reset: syn::Ident,
    counters: Vec<CounterArg>,
}

/// A status counter, and the output its count drives if one is named (`counter => port`).
struct CounterArg {
    name: syn::Ident,
    port: Option<syn::Expr>,
}

impl syn::parse::Parse for CounterCall {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let me = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let clock = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let reset = input.parse()?;
        let mut counters = Vec::new();
        while input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            let name = input.parse()?;
            let port = if input.parse::<Option<syn::Token![=>]>>()?.is_some() { Some(input.parse()?) } else { None };
            counters.push(CounterArg { name, port });
        }
        if !input.is_empty() {
            return Err(input.error("status_counters!(self, clock, reset, counter, counter => port, …)"));
        }
        Ok(Self { me, clock, reset, counters })
    }
}

/// Where the listed fields go among those written out: they decide the order of ports and
/// declarations in the Verilog.
enum Place {
    First,
    Last,
}

/// One group of a `#[locals(…)]`, `#[registers(…)]` or `#[ports(…)]` list: `a, b, c: Type` (a
/// port group starts with its direction, `in` or `out`), after any doc comment, which documents
/// every field of the group.
struct FieldGroup {
    docs: Vec<syn::Attribute>,
    direction: Option<Direction>,
    names: Vec<syn::Ident>,
    ty: Type,
}

#[derive(Clone, Copy)]
enum Direction {
    In,
    Out,
}

impl syn::parse::Parse for FieldGroup {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let docs = input.call(syn::Attribute::parse_outer)?;
        let direction = if input.peek(syn::Token![in]) {
            input.parse::<syn::Token![in]>()?;
            Some(Direction::In)
        } else if input.peek(syn::Ident) && input.fork().parse::<syn::Ident>()? == "out" && input.peek2(syn::Ident) {
            input.parse::<syn::Ident>()?;
            Some(Direction::Out)
        } else {
            None
        };
        let mut names = vec![input.parse::<syn::Ident>()?];
        while input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
            names.push(input.parse()?);
        }
        input.parse::<syn::Token![:]>()?;
        Ok(Self { docs, direction, names, ty: input.parse()? })
    }
}

/// Adds one field per listed name to a block's struct, each of the type `wrap` makes of the
/// group (with its visibility), or the error `wrap` finds in the group.
fn add_fields(
    attr: TokenStream,
    item: TokenStream,
    place: Place,
    wrap: impl Fn(&FieldGroup) -> syn::Result<(proc_macro2::TokenStream, Type)>,
) -> TokenStream {
    let parser = syn::punctuated::Punctuated::<FieldGroup, syn::Token![;]>::parse_terminated;
    let groups = match parser.parse(attr) {
        Ok(groups) => groups,
        Err(error) => return error.to_compile_error().into(),
    };
    let mut block = parse_macro_input!(item as DeriveInput);
    let Data::Struct(data) = &mut block.data else {
        return syn::Error::new_spanned(&block.ident, "fields are added to a struct only").to_compile_error().into();
    };
    let Fields::Named(fields) = &mut data.fields else {
        return syn::Error::new_spanned(&block.ident, "fields are added to a struct with named fields only").to_compile_error().into();
    };
    let mut listed = Vec::new();
    for group in &groups {
        let (visibility, ty) = match wrap(group) {
            Ok(wrapped) => wrapped,
            Err(error) => return error.to_compile_error().into(),
        };
        let docs = &group.docs;
        for name in &group.names {
            listed.push(syn::Field::parse_named.parse2(quote! { #(#docs)* #visibility #name: #ty }).expect("a named field"));
        }
    }
    let written = std::mem::take(&mut fields.named);
    fields.named = match place {
        Place::First => listed.into_iter().chain(written).collect(),
        Place::Last => written.into_iter().chain(listed).collect(),
    };
    quote! { #block }.into()
}

/// Declares a block's local signals compactly, as Verilog declares wires: the attribute
/// `#[locals(a, b: Bit; sum: Bits<17>)]` above `#[derive(LogicBlock, …)]` appends the fields
/// `a: Signal<Local, Bit>, b: Signal<Local, Bit>, sum: Signal<Local, Bits<17>>` to the struct, in
/// the order listed, after the fields written out. A doc comment before a group documents each of
/// its fields.
#[proc_macro_attribute]
pub fn locals(attr: TokenStream, item: TokenStream) -> TokenStream {
    add_fields(attr, item, Place::Last, |group| {
        no_direction(group)?;
        let ty = &group.ty;
        Ok((quote! {}, syn::parse_quote! { Signal<Local, #ty> }))
    })
}

/// Declares a block's plain registers compactly: `#[registers(valid, last: Bit; key: Bits<64>)]`
/// appends `valid: DFF<Bit>, last: DFF<Bit>, key: DFF<Bits<64>>` to the struct, in the order listed,
/// after the fields written out (and before those of a `#[locals]` below it). A doc comment before
/// a group documents each of its fields.
#[proc_macro_attribute]
pub fn registers(attr: TokenStream, item: TokenStream) -> TokenStream {
    add_fields(attr, item, Place::Last, |group| {
        no_direction(group)?;
        let ty = &group.ty;
        Ok((quote! {}, syn::parse_quote! { DFF<#ty> }))
    })
}

/// Declares a block's ports compactly, in the order listed, before the fields written out (so
/// they lead the Verilog module's port list, ahead of the bundles): `#[ports(in clock: Clock; in
/// reset, start: Bit; out done: Bit; out count: Bits<16>)]` inserts `pub clock: Signal<In,
/// Clock>`, …, `pub count: Signal<Out, Bits<16>>`. A doc comment before a group documents its
/// ports. Bundles (`LogicInterface`s) stay ordinary fields.
#[proc_macro_attribute]
pub fn ports(attr: TokenStream, item: TokenStream) -> TokenStream {
    add_fields(attr, item, Place::First, |group| {
        let ty = &group.ty;
        match group.direction {
            Some(Direction::In) => Ok((quote! { pub }, syn::parse_quote! { Signal<In, #ty> })),
            Some(Direction::Out) => Ok((quote! { pub }, syn::parse_quote! { Signal<Out, #ty> })),
            None => Err(syn::Error::new_spanned(&group.names[0], "a port group starts with its direction: `in` or `out`")),
        }
    })
}

/// Registers and locals have no direction.
fn no_direction(group: &FieldGroup) -> syn::Result<()> {
    match group.direction {
        None => Ok(()),
        Some(_) => Err(syn::Error::new_spanned(&group.names[0], "only a port has a direction")),
    }
}
