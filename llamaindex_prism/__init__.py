"""LlamaIndex adapters for PRISM memory."""
