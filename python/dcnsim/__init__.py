"""dcnsim (Python front arrives with the python-front branch)."""
