//! The bottom layer: small helpers that every other module may use and
//! that use nothing of the crate — text made safe for a terminal, a
//! Markdown cell or a spreadsheet ([`text`], [`cells`]), names made safe
//! for a file ([`names`]), and files written whole or not at all
//! ([`files`]).

pub mod cells;
pub mod exit;
pub mod files;
pub mod names;
pub mod text;
