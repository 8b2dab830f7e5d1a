/** Which hosts are this machine's loopback (isLoopbackHost): what the CLI sends a key to over plain http://, and where metrics without a token may be served without a warning. */
import { describe, expect, it } from "vitest"

import { isLoopbackHost } from "../../src/domain/NetworkAddress.js"

describe("loopback hosts", () => {
  it("are localhost, 127.0.0.0/8 and ::1, however written", () => {
    for (
      const host of [
        "localhost",
        "LOCALHOST",
        "localhost.",
        "127.0.0.1",
        "127.0.0.2",
        "127.255.255.254",
        "::1",
        "[::1]"
      ]
    ) {
      expect(isLoopbackHost(host), host).toBe(true)
    }
    // As the URL class writes an IPv4-mapped address.
    expect(isLoopbackHost(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe(true)
  })

  it("are not any other name or address, nor the wildcard", () => {
    const others = [
      "status.example.test",
      "localhost.example.test",
      "127.0.0.1.example.test",
      "app.localhost",
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "128.0.0.1",
      "169.254.169.254",
      "[::2]",
      ""
    ]
    for (const host of others) expect(isLoopbackHost(host), host).toBe(false)
  })
})
