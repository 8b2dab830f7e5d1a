/**
 * The static mirror (docs/operations.md, "Static mirror"). Both API instances are configured with
 * the suite's S3-compatible bucket (s3rver); one publishes, the other stands by. Changes are made
 * through both instances; each one's lag runs from its answer to the first `index.html` written
 * after its incident's page. Then the publishing instance is SIGKILLed: the standby must take
 * over, and a change made after the kill must reach the bucket. At the end, what a reader sent to
 * the mirror gets must be what the service answers: the same bytes for every mirrored path, every
 * link of the mirrored pages an object of the bucket, and nothing left of an incident made private.
 */
import { readFileSync } from "node:fs"
import * as Path from "node:path"

import { mirroredPaths, mirrorKeyOf } from "../../support/S3Server.js"
import { publicGet } from "../Client.js"
import { logDir, sleep, until } from "../Processes.js"
import type { Api, TestBed } from "../TestBed.js"

const changes = 20
const spacingMs = 500
/** A change whose index has not been written this long after its answer counts as never published. */
const giveUpMs = 20_000

export interface MirrorReport {
  readonly changes: number
  readonly lagMs: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly unpublished: number
  readonly killed: string
  /** From the kill to the bucket's index naming a change made after it; null: never within 60 s. */
  readonly takeoverMs: number | null
  readonly compared: number
  readonly differing: ReadonlyArray<string>
  readonly brokenLinks: ReadonlyArray<string>
  readonly privateLeft: ReadonlyArray<string>
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

export const runMirrorScenario = async (bed: TestBed, log: (line: string) => void): Promise<MirrorReport> => {
  const { mirror } = bed
  const text = async (key: string) => (await mirror.get(key))?.body.toString("utf8") ?? ""

  /**
   * How long after `answered` the index was written following a write of `key` (the change's
   * page) made since `sent`: the publication may start before the answer is in.
   */
  const lagOf = async (key: string, sent: number, answered: number) => {
    const deadline = answered + giveUpMs
    while (performance.now() < deadline) {
      const from = mirror.timeline.findIndex((event) => event.at >= sent && event.key === key)
      const index = from < 0 ? undefined : mirror.timeline.slice(from).find((event) => event.key === "index.html")
      if (index !== undefined) return index.at - answered
      await sleep(20)
    }
    return Infinity
  }

  // Changes through both instances: an incident opened, then updated, alternately.
  const lags: Array<number> = []
  let open: string | undefined
  for (let n = 0; n < changes; n++) {
    const via: Api = bed.apis[n % 2]!
    const words = `Mirror change ${n}`
    const sent = performance.now()
    if (open === undefined) {
      open =
        (await via.operator.ok<{ id: string }>("POST", "/api/v1/admin/incidents", { title: words, message: words }))
          .id
      lags.push(await lagOf(`incidents/${open}`, sent, performance.now()))
    } else {
      const id = open
      await via.operator.ok("PATCH", `/api/v1/admin/incidents/${id}/resolve`, { message: words })
      open = undefined
      lags.push(await lagOf(`incidents/${id}`, sent, performance.now()))
    }
    await sleep(spacingMs)
  }
  log(
    `  ${changes} changes: lag p50 ${percentile(lags, 0.5).toFixed(0)} ms, p99 ${percentile(lags, 0.99).toFixed(0)} ms`
  )

  // One made private: its objects must go.
  const hidden = await bed.apis[0].operator.ok<{ id: string }>("POST", "/api/v1/admin/incidents", {
    title: "Mirror: soon private",
    message: "Public for a moment"
  })
  await until(
    "the incident's page in the bucket",
    async () => (await mirror.get(`incidents/${hidden.id}`)) !== undefined,
    20_000
  )
  await bed.apis[0].operator.ok("PUT", `/api/v1/admin/incidents/${hidden.id}`, { isPublic: false })

  // The publishing instance dies; the other takes over.
  const publisherIndex = bed.apis.findIndex((api) =>
    api.process.output().includes("Publishing the public page to the mirror")
  )
  if (publisherIndex < 0) throw new Error("no API instance says it publishes to the mirror")
  const publisher = bed.apis[publisherIndex]!
  const survivor = bed.apis[1 - publisherIndex]!
  await publisher.process.kill()
  const killedAt = performance.now()
  log(`  ${publisher.process.name} (publishing) SIGKILLed`)
  const after = await survivor.operator.ok<{ id: string }>("POST", "/api/v1/admin/incidents", {
    title: "Mirror: after the kill",
    message: "Published by the standby"
  })
  let takeoverMs: number | null = null
  try {
    await until(
      "the change after the kill in the bucket's index",
      async () =>
        (await text("index.html")).includes("Mirror: after the kill") &&
        (await mirror.get(`incidents/${after.id}`)) !== undefined,
      60_000,
      200
    )
    takeoverMs = Math.round(performance.now() - killedAt)
  } catch (error) {
    // Reported as null, with what the survivor said of the mirror last (from its log file: the
    // process keeps only the head of its output): why it did not take over.
    const said = readFileSync(Path.join(logDir, `${survivor.process.name}.log`), "utf8").split("\n")
      .filter((line) => /mirror/i.test(line)).slice(-10)
    log(`  waiting for it: ${String(error)}`)
    log(`  the survivor's last words on the mirror:\n${said.map((line) => `    ${line.slice(0, 400)}`).join("\n")}`)
  }
  log(`  the standby published a change made after the kill ${takeoverMs} ms after it`)

  // What a reader sent to the mirror gets: the service's bytes. The page and uptime move with the
  // minute: the service reads the rollups again at the first request a minute after the last read,
  // the publisher at its own minute's tick, so a path is compared until they agree, for up to 75 s.
  const keys = await mirror.keys()
  const incidentPaths = keys.filter((key) => key.startsWith("incidents/")).map((key) => `/${key}`)
  const paths = [...mirroredPaths, ...incidentPaths]
  const differing: Array<string> = []
  for (const path of paths) {
    const same = async () => {
      const [served, mirrored] = await Promise.all([
        fetch(`${survivor.baseUrl}${path}`).then(async (response) => Buffer.from(await response.arrayBuffer())),
        mirror.get(mirrorKeyOf(path))
      ])
      return mirrored !== undefined && served.equals(mirrored.body)
    }
    await until(`${path} alike`, same, 75_000, 250).catch(() => differing.push(path))
  }
  const known = new Set(await mirror.keys())
  const brokenLinks: Array<string> = []
  for (const key of ["index.html", "history", ...[...known].filter((key) => key.startsWith("incidents/"))]) {
    for (const [, link] of (await text(key)).matchAll(/href="(\/[^"#]*)"/g)) {
      // A bucket's website endpoint, a CDN and static hosts find the object by path, ignoring the
      // query: a page's `?lang=` links open its default language there.
      if (!known.has(mirrorKeyOf(link!.split("?")[0]!))) brokenLinks.push(`${key} → ${link}`)
    }
  }
  const privateLeft = [`incidents/${hidden.id}`, `api/v1/status/incidents/${hidden.id}`].filter((key) => known.has(key))
  // The public API of the survivor no longer shows it either (what the mirror is compared with).
  if ((await publicGet(survivor.baseUrl, `/api/v1/status/incidents/${hidden.id}`)).status !== 404) {
    throw new Error("the incident made private is still public on the service")
  }
  return {
    changes,
    lagMs: {
      p50: Math.round(percentile(lags, 0.5)),
      p99: Math.round(percentile(lags, 0.99)),
      max: Math.round(Math.max(...lags))
    },
    unpublished: lags.filter((lag) => lag === Infinity).length,
    killed: publisher.process.name,
    takeoverMs,
    compared: paths.length,
    differing,
    brokenLinks,
    privateLeft
  }
}
