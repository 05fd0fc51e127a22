//! What a run reports: the result tables (`results`), how they are built
//! from a finished world (`report`), and the memory/size accounting that
//! bounds a run before and while it runs (`limits`). Reads every lower
//! layer; nothing below reads it.

pub mod csv;
pub mod limits;
pub mod report;
pub mod results;
