"""medjudge: statistics and reports for LLM/MLLM judges versus expert labels."""

__version__ = "0.1.0"
