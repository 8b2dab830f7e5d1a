/**
 * Typed configuration: the only place the process environment is read.
 * The variables and their defaults are listed in docs/configuration.md.
 */
import { Config, ConfigProvider, Duration, Effect, Option, Redacted, Result, Schema, SchemaIssue } from "effect"

import { type MirrorTarget, parseS3Url } from "../domain/MirrorTarget.js"
import { parseAddressList } from "../domain/NetworkAddress.js"
import { isProbeRegion } from "../domain/Region.js"
import { RedisUrl } from "./RedisEndpoint.js"

/**
 * The process environment as the source of configuration, except that a variable set to
 * nothing (`VAR=` in an env file, `${VAR:-}` in docker-compose.yml) counts as unset: that is how
 * operators leave one out. Read as set, an empty ADMIN_PASSWORD would stop the service and an
 * empty SMTP_URL would turn SMTP on. The entry points (service, CLI, probe) read through it.
 */
export const environment = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  ConfigProvider.fromEnvRecord(
    Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== "")
    )
  )

/** The failure of a variable that is set but refused: `message` names the variable and the rule. */
export const invalidData = (name: string, message: string) =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
  )

/** `self`, refused with `message` when its value (the default included) breaks the rule `valid`. */
const validate = <A>(name: string, message: string, valid: (value: A) => boolean) => (self: Config.Config<A>) =>
  Config.mapEffect(self, (value) => valid(value) ? Effect.succeed(value) : Effect.fail(invalidData(name, message)))

export const Role = ["api", "scheduler", "ingest", "dispatcher"] as const
export type Role = (typeof Role)[number]

const isRoles = (list: Array<string>): list is Array<Role> =>
  list.every((role) => (Role as ReadonlyArray<string>).includes(role))

const roles = Config.String("ROLES").pipe(
  Config.withDefault(Role.join(",")),
  Config.map((value) => value.split(",").map((role) => role.trim()).filter((role) => role.length > 0)),
  Config.mapEffect((list) =>
    isRoles(list)
      ? Effect.succeed(list)
      : Effect.fail(invalidData("ROLES", `ROLES must be a comma list of ${Role.join(", ")}`))
  )
)

/** Where webhooks and checks never connect, unless OUTBOUND_DENY says otherwise: link-local and cloud metadata addresses. */
export const defaultOutboundDeny = "169.254.0.0/16, fe80::/10, fd00:ec2::254/128, 100.100.100.200/32"

/**
 * Addresses and ranges that webhook deliveries and checks are never connected to
 * (src/services/OutboundGuard.ts). Set to nothing it is unset, as every variable: `none` is the
 * way to deny nothing.
 */
export const OutboundDeny = Config.String("OUTBOUND_DENY").pipe(
  Config.withDefault(defaultOutboundDeny),
  Config.mapEffect((text) =>
    Result.match(parseAddressList(text.trim().toLowerCase() === "none" ? "" : text), {
      onFailure: (message) => Effect.fail(invalidData("OUTBOUND_DENY", message)),
      onSuccess: Effect.succeed
    })
  )
)

/**
 * A port to listen on: an integer from 0 to 65535, written plainly (as Config.Port reads one),
 * where 0 asks the system for any free port; the server logs the one it got. Config.Port
 * refuses 0.
 */
export const listenPort = (name: string) =>
  Config.String(name).pipe(
    Config.mapEffect((text) => {
      const port = Number(text)
      return Number.isInteger(port) && port >= 0 && port <= 65535 && String(port) === text
        ? Effect.succeed(port)
        : Effect.fail(
          invalidData(name, `${name} must be a port from 0 to 65535 (0: any free port), not ${JSON.stringify(text)}`)
        )
    })
  )

export const AppConfig = Config.all({
  /** 0: any free port; `Listening on http://HOST:PORT` in the log names it. */
  port: listenPort("PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  publicUrl: Config.option(Config.URL("PUBLIC_URL")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./data")),
  redisUrl: RedisUrl,
  smtpUrl: Config.option(Config.Redacted("SMTP_URL")),
  mailFrom: Config.String("MAIL_FROM").pipe(Config.withDefault("status@localhost")),
  adminEmail: Config.option(Config.String("ADMIN_EMAIL")),
  adminPassword: Config.option(Config.Redacted("ADMIN_PASSWORD")),
  sessionIdleTimeout: Config.Duration("SESSION_IDLE_TIMEOUT").pipe(Config.withDefault(Duration.hours(12))),
  sessionMaxAge: Config.Duration("SESSION_MAX_AGE").pipe(Config.withDefault(Duration.days(7))),
  resultsRetentionDays: Config.Int("RESULTS_RETENTION_DAYS").pipe(
    Config.withDefault(7),
    validate(
      "RESULTS_RETENTION_DAYS",
      "RESULTS_RETENTION_DAYS must be between 1 and 3650",
      (d: number) => d >= 1 && d <= 3650
    )
  ),
  /** How long the audit log keeps its entries; housekeeping deletes older ones (src/workers/Housekeeping.ts). */
  auditRetentionDays: Config.Int("AUDIT_RETENTION_DAYS").pipe(
    Config.withDefault(365),
    validate(
      "AUDIT_RETENTION_DAYS",
      "AUDIT_RETENTION_DAYS must be between 1 and 3650",
      (d: number) => d >= 1 && d <= 3650
    )
  ),
  /** Reverse proxies whose X-Forwarded-For names the client (src/http/ClientAddress.ts). */
  trustProxy: Config.String("TRUST_PROXY").pipe(
    Config.withDefault(""),
    Config.mapEffect((text) =>
      Result.match(parseAddressList(text), {
        onFailure: (message) => Effect.fail(invalidData("TRUST_PROXY", message)),
        onSuccess: Effect.succeed
      })
    )
  ),
  outboundDeny: OutboundDeny,
  roles,
  probeRegion: Config.String("PROBE_REGION").pipe(
    Config.withDefault("local"),
    validate(
      "PROBE_REGION",
      "PROBE_REGION must be 1-63 of a-z, 0-9, '-', '_', and not push (the region of push monitors)",
      isProbeRegion
    )
  )
}).pipe(
  Config.map((config) => ({
    ...config,
    /**
     * Public address of the status page, without a trailing slash. The default is read before
     * the server listens: with PORT=0 it names port 0, so set PUBLIC_URL then.
     */
    publicUrl: Option.match(config.publicUrl, {
      onNone: () => `http://localhost:${config.port}`,
      onSome: (url) => url.toString().replace(/\/$/, "")
    })
  }))
)

export type AppConfig = Config.Success<typeof AppConfig>

/** The probe fleet's job/result transport (src/queue), shared by the scheduler, ingest and probes. */
export const QueueConfig = Config.all({
  /**
   * Unset: the in-process transport and one in-process probe. REDIS_URL, or the Sentinel URL that
   * REDIS_SENTINELS and REDIS_SENTINEL_NAME stand for (./RedisEndpoint.ts).
   */
  redisUrl: RedisUrl,
  /** Prepended to the stream names `jobs` and `results`, so deployments can share one Redis. */
  streamPrefix: Config.String("REDIS_STREAM_PREFIX").pipe(Config.withDefault("")),
  /** A delivery left unacknowledged this long is claimed by a live sibling of its group. */
  claimIdleMs: Config.Int("QUEUE_CLAIM_IDLE_MS").pipe(
    Config.withDefault(30_000),
    validate("QUEUE_CLAIM_IDLE_MS", "QUEUE_CLAIM_IDLE_MS must be at least 100", (ms: number) => ms >= 100)
  )
})

export type QueueConfig = Config.Success<typeof QueueConfig>

/**
 * The static mirror (src/mirror, docs/operations.md, "Static mirror"): a bucket (MIRROR_S3_URL, with
 * MIRROR_S3_REGION, else AWS_REGION, else us-east-1; credentials from AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, else the AWS SDK's own chain: a profile, an instance role) or a folder
 * (MIRROR_DIR); none: no mirror.
 */
export const MirrorConfig = Config.all({
  s3Url: Config.option(Config.String("MIRROR_S3_URL")),
  region: Config.String("MIRROR_S3_REGION").pipe(
    Config.orElse(() => Config.String("AWS_REGION")),
    Config.withDefault("us-east-1")
  ),
  accessKeyId: Config.option(Config.String("AWS_ACCESS_KEY_ID")),
  secretAccessKey: Config.option(Config.Redacted("AWS_SECRET_ACCESS_KEY")),
  sessionToken: Config.option(Config.Redacted("AWS_SESSION_TOKEN")),
  dir: Config.option(Config.String("MIRROR_DIR"))
}).pipe(
  Config.mapEffect((
    { accessKeyId, dir, region, s3Url, secretAccessKey, sessionToken }
  ): Effect.Effect<Option.Option<MirrorTarget>, Config.ConfigError> => {
    if (Option.isSome(s3Url) && Option.isSome(dir)) {
      return Effect.fail(invalidData("MIRROR_DIR", "set MIRROR_S3_URL or MIRROR_DIR, not both"))
    }
    if (Option.isSome(dir)) return Effect.succeed(Option.some({ _tag: "Directory", path: dir.value }))
    if (Option.isNone(s3Url)) return Effect.succeed(Option.none())
    if (Option.isSome(accessKeyId) !== Option.isSome(secretAccessKey)) {
      return Effect.fail(
        invalidData("AWS_SECRET_ACCESS_KEY", "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY together")
      )
    }
    const credentials = Option.isSome(accessKeyId) && Option.isSome(secretAccessKey)
      ? {
        accessKeyId: accessKeyId.value,
        secretAccessKey: Redacted.value(secretAccessKey.value),
        ...Option.match(sessionToken, {
          onNone: () => ({}),
          onSome: (token) => ({ sessionToken: Redacted.value(token) })
        })
      }
      : undefined
    return Result.match(parseS3Url(s3Url.value, region, credentials), {
      onFailure: (message) => Effect.fail(invalidData("MIRROR_S3_URL", message)),
      onSuccess: (target) => Effect.succeed(Option.some(target))
    })
  })
)

/**
 * Traces and logs (src/observability/Telemetry.ts, docs/operations.md "Traces and logs").
 * Tracing is on only when OTEL_EXPORTER_OTLP_ENDPOINT is set; OTEL_SERVICE_NAME,
 * OTEL_SERVICE_VERSION and OTEL_RESOURCE_ATTRIBUTES are read by the exporter itself.
 */
export const TelemetryConfig = Config.all({
  /** The collector's base URL: spans go to `<endpoint>/v1/traces` (OTLP over HTTP, JSON). */
  otlpEndpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
  /** `key=value,key=value` sent with every export (a collector's API key): redacted, never logged. */
  otlpHeaders: Config.option(Config.Redacted("OTEL_EXPORTER_OTLP_HEADERS")),
  serviceName: Config.option(Config.String("OTEL_SERVICE_NAME")),
  /** How often buffered spans are sent, in milliseconds (the standard batch processor's delay). */
  exportDelayMs: Config.Int("OTEL_BSP_SCHEDULE_DELAY").pipe(
    Config.withDefault(5000),
    validate(
      "OTEL_BSP_SCHEDULE_DELAY",
      "OTEL_BSP_SCHEDULE_DELAY must be between 10 and 600000",
      (ms: number) => ms >= 10 && ms <= 600_000
    )
  ),
  logFormat: Config.Literals(["text", "json"], "LOG_FORMAT").pipe(Config.withDefault("text" as const))
})

export type TelemetryConfig = Config.Success<typeof TelemetryConfig>

/**
 * `GET /metrics` (docs/operations.md, "Metrics"). With neither variable set it is not served:
 * the main port is the public one. METRICS_PORT moves it off the main port to a server of its
 * own (any role's process); METRICS_TOKEN, wherever it is served (a probe's
 * PROBE_METRICS_PORT too), asks for it as a bearer token.
 */
export const MetricsConfig = Config.all({
  token: Config.option(Config.Redacted("METRICS_TOKEN")),
  /** 0: any free port; `Metrics on port N` in the log names it (PROBE_METRICS_PORT too). */
  port: Config.option(listenPort("METRICS_PORT")),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  metricsHost: Config.option(Config.String("METRICS_HOST")),
  /** A probe agent's own /metrics (probes/main.ts); unset: no server. */
  probePort: Config.option(listenPort("PROBE_METRICS_PORT"))
}).pipe(
  Config.map(({ metricsHost, ...config }) => ({
    ...config,
    /**
     * Where METRICS_PORT and PROBE_METRICS_PORT listen: METRICS_HOST, else HOST with a token and
     * loopback without one, so metrics nobody asked a token for stay on the machine.
     */
    host: Option.getOrElse(metricsHost, () => Option.isSome(config.token) ? config.host : "127.0.0.1")
  }))
)

export type MetricsConfig = Config.Success<typeof MetricsConfig>
