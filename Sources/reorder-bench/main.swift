// `reorder-bench store …`: the store benchmark (Sources/reorder-bench/StoreBench.swift).
if CommandLine.arguments.dropFirst().first == "store" {
  runStoreBenchmark(arguments: Array(CommandLine.arguments.dropFirst(2)))
}
print("reorder-bench: not yet")
