/**
 * Configuration of a probe agent (probes/main.ts, and the in-process probe of the service).
 * The transport's variables (REDIS_URL or the Sentinel ones, REDIS_STREAM_PREFIX,
 * QUEUE_CLAIM_IDLE_MS) are in src/runtime/Config.ts (`QueueConfig`), shared with the scheduler
 * and ingest.
 */
import { readFileSync } from "node:fs"
import { hostname } from "node:os"

import { Config, Effect, Option, Schema, SchemaIssue } from "effect"

import { probeNamePattern } from "../src/domain/ProbeHeartbeat.js"
import { isProbeRegion } from "../src/domain/Region.js"
import { OutboundDeny } from "../src/runtime/Config.js"
import { parseDnsServers } from "./checks/dns.js"

/** `self`, refused with `message` when its value (the default included) breaks the rule `valid`. */
const validate = <A>(name: string, message: string, valid: (value: A) => boolean) => (self: Config.Config<A>) =>
  Config.mapEffect(self, (value) =>
    valid(value)
      ? Effect.succeed(value)
      : Effect.fail(
        new Config.ConfigError(
          new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
        )
      ))

export const ProbeConfig = Config.all({
  region: Config.String("PROBE_REGION").pipe(
    Config.withDefault("local"),
    validate(
      "PROBE_REGION",
      "PROBE_REGION must be 1-63 of a-z, 0-9, '-', '_', and not push (the region of push monitors)",
      isProbeRegion
    )
  ),
  /** This probe's consumer name in its region's group; unique per process by default. */
  name: Config.String("PROBE_NAME").pipe(
    Config.withDefault(`${hostname()}-${process.pid}`),
    validate(
      "PROBE_NAME",
      "PROBE_NAME must be 1-128 of A-Z, a-z, 0-9, '.', '_', '-' (the default is <hostname>-<pid>)",
      (name) => probeNamePattern.test(name)
    )
  ),
  concurrency: Config.Int("PROBE_CONCURRENCY").pipe(
    Config.withDefault(32),
    validate(
      "PROBE_CONCURRENCY",
      "PROBE_CONCURRENCY must be between 1 and 10000",
      (n) => n >= 1 && n <= 10_000
    )
  ),
  sslWarningDays: Config.Int("SSL_EXPIRY_WARNING_DAYS").pipe(
    Config.withDefault(14),
    validate("SSL_EXPIRY_WARNING_DAYS", "SSL_EXPIRY_WARNING_DAYS must be >= 0", (n) => n >= 0)
  ),
  /** A PEM file of extra CA certificates trusted by `http` (https) and `ssl_expiry` checks. */
  extraCaFile: Config.option(Config.String("PROBE_EXTRA_CA_FILE")),
  /** Addresses no check connects to, as for the service's webhooks. */
  outboundDeny: OutboundDeny,
  /** The resolvers `dns` checks ask (comma-separated `ip[:port]`); empty: the system's. */
  dnsServers: Config.String("PROBE_DNS_SERVERS").pipe(
    Config.withDefault(""),
    validate(
      "PROBE_DNS_SERVERS",
      "PROBE_DNS_SERVERS must be a comma-separated list of ip, ip:port or [ipv6]:port",
      (text) => parseDnsServers(text) !== undefined
    ),
    Config.map((text) => parseDnsServers(text) ?? [])
  )
})

export type ProbeConfig = Config.Success<typeof ProbeConfig>

/** The extra CA bundle's contents, read once at start-up; a missing file stops the probe with its path. */
export const readExtraCa = (config: ProbeConfig) =>
  Option.match(config.extraCaFile, {
    onNone: () => Effect.succeed(undefined),
    onSome: (path) =>
      Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: (cause) => new Error(`PROBE_EXTRA_CA_FILE ${path} cannot be read: ${String(cause)}`)
      })
  })
