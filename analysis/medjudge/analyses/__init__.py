"""Study-level analyses: ``analysis(study, ...) -> SomethingResult`` (calls stats/ kernels)."""
