//! Mastra's agent routes served over this store.
