"""Gradio demo (placeholder until the app issue lands)."""

if __name__ == "__main__":
    raise SystemExit("The Gradio app is not built yet.")
