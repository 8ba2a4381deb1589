// Placeholder until the module lands; see issues.
