print("reorder-bench: not yet")
