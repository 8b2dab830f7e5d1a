/**
 * The whole system on loopback, every part a child process of the suite: two API instances on
 * one database, the scheduler, ingest and dispatcher roles each in its own process, and two
 * probe agents in each of the regions `eu` and `us`. PostgreSQL is the machine's server (a fresh
 * database) reached through a TCP proxy the suite can cut; Redis is a redis-server of the
 * suite's own that it can stop; webhooks, SMTP, monitor targets and the S3-compatible bucket of
 * the static mirror are served by the suite.
 */
import { randomBytes } from "node:crypto"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

import { Effect, Exit, Scope } from "effect"
import pg from "pg"

import { probeAclRules, serviceAclRules } from "../../src/queue/ProbeAcl.js"
import { listeningUrl, projectRoot, runCommand, waitFor200 } from "../support/ChildProcess.js"
import { startOwnRedis } from "../support/RedisServer.js"
import { s3Credentials, type S3Server, startS3Server } from "../support/S3Server.js"
import { type SmtpCapture, smtpCapture } from "../support/SmtpCapture.js"
import { tcpProxy } from "../support/TcpProxy.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { type Operator, operator } from "./Client.js"
import { type ManagedProcess, managedProcess } from "./Processes.js"
import { startTargets, startWebhookSink, type Targets, type WebhookSink } from "./Sinks.js"

export const regions = ["eu", "us"] as const
export type Region = (typeof regions)[number]

/**
 * The loopback address each probe connects to the monitors' target from (probeSourceAddress.mjs),
 * so the target's own log tells which probe and region made a check. Linux routes all of
 * 127.0.0.0/8 to the loopback interface; elsewhere the probes keep 127.0.0.1.
 */
export const probeSourceAddress = (region: Region, n: 1 | 2) =>
  process.platform === "linux" ? `127.0.${10 + regions.indexOf(region)}.${n}` : "127.0.0.1"

/** The probe (PROBE_NAME) and region a target request came from, by its source address. */
export const probeOfAddress = new Map<string, { readonly region: Region; readonly probe: string }>(
  regions.flatMap((region) =>
    ([1, 2] as const).map((n) => [probeSourceAddress(region, n), { region, probe: `${region}-${n}` }])
  )
)

export interface Api {
  readonly process: ManagedProcess
  readonly baseUrl: string
  readonly operator: Operator
}

export interface TestBed {
  readonly apis: readonly [Api, Api]
  readonly scheduler: ManagedProcess
  readonly ingest: ManagedProcess
  readonly dispatcher: ManagedProcess
  readonly probes: Record<Region, readonly [ManagedProcess, ManagedProcess]>
  readonly all: ReadonlyArray<ManagedProcess>
  readonly apiKey: string
  readonly redis: Awaited<ReturnType<typeof startOwnRedis>>
  readonly streamPrefix: string
  /** Cuts every connection to PostgreSQL and refuses new ones, until `restore`. */
  readonly database: { readonly cut: () => Promise<void>; readonly restore: () => Promise<void> }
  /** A direct connection (not through the proxy) for the checkers' queries. */
  readonly sql: pg.Client
  readonly databaseName: string
  readonly webhooks: WebhookSink
  readonly smtp: SmtpCapture
  readonly targets: Targets
  /** The S3-compatible bucket (s3rver) both API instances mirror the public page to. */
  readonly mirror: S3Server
  readonly close: () => Promise<void>
}

/**
 * The fleet's Redis ACL users, as in production (docs/operations.md): `service`, and
 * `probe-<region>` for each region, each with a fresh password; `aclUsers` is what a Redis of the
 * suite's own is started with.
 */
export const fleetAclUsers = (streamPrefix: string) => {
  const password = (user: string) => `${user}-${randomBytes(12).toString("hex")}`
  const users: Record<string, { readonly password: string; readonly rules: ReadonlyArray<string> }> = {
    service: { password: password("service"), rules: serviceAclRules(streamPrefix) },
    ...Object.fromEntries(regions.map((region) => [`probe-${region}`, {
      password: password(region),
      rules: probeAclRules(streamPrefix, region)
    }]))
  }
  const aclUsers = Object.fromEntries(
    Object.entries(users).map(([user, { password, rules }]) => [user, ["reset", "on", `>${password}`, ...rules]])
  )
  return { users, aclUsers }
}

export const startTestBed = async (): Promise<TestBed> => {
  const scope = Effect.runSync(Scope.make())
  const inScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.runPromise(Scope.provide(effect, scope))
  const started: Array<ManagedProcess> = []
  const closers: Array<() => Promise<void>> = []
  const close = async () => {
    await Promise.all(started.map((process) => process.stop(5_000)))
    for (const closer of closers.reverse()) await closer().catch(() => undefined)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
  try {
    const database = await inScope(freshDatabaseUrl)
    const proxy = await inScope(tcpProxy(Number(new URL(database.url).port || 5432)))
    const proxiedUrl = new URL(database.url)
    proxiedUrl.port = String(proxy.port)
    // Probes sign in as their region's ACL user and the service as its own, as in production
    // (docs/operations.md); the suite's checks use the default user.
    const streamPrefix = "system:"
    const { aclUsers, users } = fleetAclUsers(streamPrefix)
    const redis = await startOwnRedis({ aclUsers })
    const redisUrlOf = (user: string) => {
      const url = new URL(redis.url)
      url.username = user
      url.password = users[user]!.password
      return url.toString()
    }
    closers.push(redis.stop)
    const webhooks = await startWebhookSink()
    closers.push(webhooks.close)
    const targets = await startTargets()
    closers.push(targets.close)
    const mirror = await startS3Server()
    closers.push(mirror.dispose)
    const smtp = await inScope(smtpCapture)
    const sql = new pg.Client({ connectionString: database.url })
    await sql.connect()
    closers.push(() => sql.end())

    const common = {
      DATABASE_URL: proxiedUrl.toString(),
      REDIS_URL: redisUrlOf("service"),
      REDIS_STREAM_PREFIX: streamPrefix,
      PUBLIC_URL: "https://status.system.test",
      SMTP_URL: smtp.url,
      HOST: "127.0.0.1"
    }
    const service = (name: string, roles: string, extra: Record<string, string> = {}) => {
      // What a failed ingest batch left pending is stored again after 2 s, not 30. The probes run
      // on the default, as in production: a killed probe's jobs go to a sibling once it is silent.
      const process = managedProcess(name, "src/main.ts", {
        ...common,
        QUEUE_CLAIM_IDLE_MS: "2000",
        ROLES: roles,
        ...extra
      })
      started.push(process)
      return process
    }

    // Each API instance binds any free port and logs it; the suite reads its URL from there. They
    // are not restarted, so the URL holds for the run.
    const api = { PORT: "0", MIRROR_S3_URL: `${mirror.endpoint}/${mirror.bucket}`, ...s3Credentials }
    const apiProcesses = [service("api-1", "api", api), service("api-2", "api", api)] as const
    // The first instance migrates the database; the rest start on a ready schema.
    apiProcesses[0].start()
    const firstApiUrl = await listeningUrl(apiProcesses[0], 120_000)
    await waitFor200(`${firstApiUrl}/readyz`, 120_000)
    const key = await runCommand("src/cli/main.ts", ["api-key", "create", "--name", "system-suite"], {
      DATABASE_URL: database.url
    })
    if (key.code !== 0) throw new Error(`creating the suite's API key failed: ${key.stderr}`)
    const apiKey = key.stdout.trim()

    const scheduler = service("scheduler", "scheduler")
    const ingest = service("ingest", "ingest")
    const dispatcher = service("dispatcher", "dispatcher")
    const probes = Object.fromEntries(regions.map((region) => {
      const pair = ([1, 2] as const).map((n) => {
        const process = managedProcess(`probe-${region}-${n}`, "probes/main.ts", {
          ...common,
          REDIS_URL: redisUrlOf(`probe-${region}`),
          PROBE_REGION: region,
          PROBE_NAME: `${region}-${n}`,
          PROBE_CONCURRENCY: "64",
          // dns monitors (the fuzzer makes some) ask a closed loopback port: no query leaves the machine.
          PROBE_DNS_SERVERS: "127.0.0.1:9",
          NODE_OPTIONS: `--import ${pathToFileURL(Path.join(projectRoot, "test/system/probeSourceAddress.mjs")).href}`,
          SYSTEM_PROBE_SOURCE_ADDRESS: probeSourceAddress(region, n),
          SYSTEM_TARGET_PORT: String(targets.port)
        })
        started.push(process)
        return process
      })
      return [region, pair as unknown as readonly [ManagedProcess, ManagedProcess]]
    })) as Record<Region, readonly [ManagedProcess, ManagedProcess]>
    for (const process of started) if (!process.alive()) process.start()
    const apis = [
      { process: apiProcesses[0], baseUrl: firstApiUrl },
      { process: apiProcesses[1], baseUrl: await listeningUrl(apiProcesses[1], 120_000) }
    ]
    await Promise.all([
      waitFor200(`${apis[1]!.baseUrl}/readyz`, 120_000),
      scheduler.waitForOutput("Scheduler active", 120_000),
      dispatcher.waitForOutput("Dispatcher started", 120_000),
      ...regions.flatMap((region) => probes[region].map((probe) => probe.waitForOutput("probe ready", 120_000)))
    ])

    return {
      apis: apis.map((api) => ({ ...api, operator: operator(api.baseUrl, apiKey) })) as unknown as readonly [Api, Api],
      scheduler,
      ingest,
      dispatcher,
      probes,
      all: started,
      apiKey,
      redis,
      streamPrefix,
      database: { cut: proxy.cut, restore: proxy.restore },
      sql,
      databaseName: database.name,
      webhooks,
      smtp,
      targets,
      mirror,
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}
