"""Framework adapters for bleukit, installed as ``bleukit.integrations``.

They translate a framework's inputs into bleukit's core and back; no BLEU logic lives here.
"""
