"""LangChain adapters for PRISM memory."""
