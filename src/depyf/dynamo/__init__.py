"""torch.compile integration; torch is imported lazily, only by the modules that need it."""
