print("reorder: not yet")
