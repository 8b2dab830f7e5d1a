/**
 * OUTBOUND_DENY as the service and the probes read it, and the guard built from it, checked
 * without connecting anywhere: by default the link-local range and the cloud metadata services
 * are denied, set to nothing it keeps that default, `none` denies nothing.
 */
import type { LookupAddress } from "node:dns"

import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"

import { ProbeConfig } from "../../probes/ProbeConfig.js"
import { AppConfig, environment } from "../../src/runtime/Config.js"
import { defaultOutboundGuard, OutboundDenied, outboundGuard } from "../../src/runtime/OutboundGuard.js"

const metadata = ["169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "100.100.100.200"]
const elsewhere = ["127.0.0.1", "10.0.0.1", "192.168.1.1", "8.8.8.8", "::1", "fd00:ec2::253", "2001:db8::1"]

const denyOf = (variables: Record<string, string>) =>
  AppConfig.pipe(
    Effect.map((config) => config.outboundDeny),
    Effect.provideService(ConfigProvider.ConfigProvider, environment(variables))
  )

describe("OUTBOUND_DENY", () => {
  it.effect("denies the link-local and metadata ranges by default, and nothing else", () =>
    Effect.gen(function*() {
      for (const variables of [{}, { OUTBOUND_DENY: "" }, { OUTBOUND_DENY: " " }]) {
        const deny = yield* denyOf(variables)
        for (const address of metadata) expect(deny.includes(address), address).toBe(true)
        for (const address of elsewhere) expect(deny.includes(address), address).toBe(false)
      }
      // The probes read the same variable with the same default.
      const probe = yield* ProbeConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment({})))
      expect(probe.outboundDeny.includes("169.254.169.254")).toBe(true)
    }))

  it.effect("reads a list of its own, `none` to deny nothing, and refuses an entry that is not an address", () =>
    Effect.gen(function*() {
      const own = yield* denyOf({ OUTBOUND_DENY: "10.0.0.0/8, 100.100.100.200" })
      expect(["10.1.2.3", "100.100.100.200"].map(own.includes)).toEqual([true, true])
      expect(own.includes("169.254.169.254")).toBe(false)

      const none = yield* denyOf({ OUTBOUND_DENY: "None" })
      expect(none.isEmpty).toBe(true)
      expect(metadata.some(none.includes)).toBe(false)

      const invalid = yield* Effect.flip(denyOf({ OUTBOUND_DENY: "10.0.0.0/8, metadata.internal" }))
      expect(String(invalid)).toContain(`"metadata.internal" is not an IP address or CIDR range`)
    }))

  it("the default guard refuses the metadata addresses however they are written, and lets names through to DNS", () => {
    for (const host of ["169.254.169.254", "[fd00:ec2::254]", "::ffff:169.254.169.254", "fe80::1%eth0", "FE80::1"]) {
      expect(defaultOutboundGuard.refuse(host), host).toBeInstanceOf(OutboundDenied)
    }
    expect(defaultOutboundGuard.refuse("169.254.169.254")?.message).toBe(
      "connection to 169.254.169.254 refused by OUTBOUND_DENY"
    )
    for (const host of ["127.0.0.1", "10.0.0.1", "[::1]", "metadata.google.internal", "example.test"]) {
      expect(defaultOutboundGuard.refuse(host), host).toBeUndefined()
    }
  })

  it.effect("the guard's lookup fails when any answer is denied, and passes the answers on otherwise", () =>
    Effect.gen(function*() {
      // A resolver of the test's own: no DNS query leaves the machine.
      const answers: Record<string, Array<LookupAddress>> = {
        "metadata.google.internal": [{ address: "169.254.169.254", family: 4 }],
        "mixed.test": [{ address: "192.0.2.10", family: 4 }, { address: "fe80::1", family: 6 }],
        "public.test": [{ address: "192.0.2.10", family: 4 }, { address: "2001:db8::10", family: 6 }]
      }
      const guard = outboundGuard(
        yield* denyOf({}),
        (hostname, _options, callback) => callback(null, answers[hostname] ?? [])
      )
      const lookup = (hostname: string, all: boolean) =>
        Effect.callback<unknown, Error>((resume) =>
          guard.lookup(
            hostname,
            { all },
            (error, address, family) =>
              resume(error === null ? Effect.succeed(all ? address : [address, family]) : Effect.fail(error))
          )
        )
      const metadataError = yield* Effect.flip(lookup("metadata.google.internal", false))
      expect(metadataError.message).toBe(
        "connection to metadata.google.internal (169.254.169.254) refused by OUTBOUND_DENY"
      )
      expect((yield* Effect.flip(lookup("mixed.test", true))).message).toBe(
        "connection to mixed.test (fe80::1) refused by OUTBOUND_DENY"
      )
      expect(yield* lookup("public.test", false)).toEqual(["192.0.2.10", 4])
      expect(yield* lookup("public.test", true)).toEqual(answers["public.test"])
    }))
})
