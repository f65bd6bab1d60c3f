// TEMPORARY placeholder so the crate compiles; the model helper replaces this whole file.
use super::Workload;
#[derive(Debug, Clone, PartialEq)]
pub struct ModelParams {
    pub jobs: usize,
    pub procs: u32,
    pub seed: u64,
}
impl Default for ModelParams {
    fn default() -> Self {
        ModelParams {
            jobs: 10_000,
            procs: 128,
            seed: 1,
        }
    }
}
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("placeholder")]
    Placeholder,
}
pub fn generate(_p: &ModelParams) -> Result<Workload, ModelError> {
    Err(ModelError::Placeholder)
}
