// Links the C math library (Double.rounded and Int64(exactly:) call trunc/floor/ceil on Linux).
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
