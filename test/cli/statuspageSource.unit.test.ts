/**
 * Reading an export of Atlassian Statuspage (src/cli/import/StatuspageSource.ts) into an
 * ImportBundle: the fixture of test/fixtures/statuspage (one page as Statuspage's manage API
 * answers it, see its README) record by record, the bundle checked against ImportBundle itself
 * (encoded, then decoded as the service would); subscribers only when asked; a list saved page by
 * page; and the exports it refuses, each naming the file and the record.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"

import { readStatuspage } from "../../src/cli/import/StatuspageSource.js"
import { ImportBundle } from "../../src/domain/ImportBundle.js"

const fixture = join(import.meta.dirname, "../fixtures/statuspage")
/** When the fixture was fetched: the storage migration is in progress, the database upgrade to come. */
const exportedAt = Date.parse("2025-11-04T16:05:00Z")

/** The fixture's JSON file, parsed. */
const fixtureJson = (file: string) =>
  Effect.promise(async () => JSON.parse(await readFile(join(fixture, file), "utf8")) as Array<Record<string, unknown>>)

/** A copy of the fixture in a directory of its own, with `changes`: a file's new text, or null to leave it out. */
const withExport = <A, E>(changes: Record<string, string | null>, use: (dir: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const dir = await mkdtemp(join(tmpdir(), "statuspage-export-"))
      for (const file of await readdir(fixture)) {
        if (file.endsWith(".json")) await copyFile(join(fixture, file), join(dir, file))
      }
      for (const [file, text] of Object.entries(changes)) {
        if (text === null) await rm(join(dir, file))
        else await writeFile(join(dir, file), text)
      }
      return dir
    }),
    use,
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

/** The bundle as the service receives it, after ImportBundle has checked it both ways. */
const checked = (bundle: ImportBundle) =>
  Effect.gen(function*() {
    const encoded = yield* Schema.encodeEffect(ImportBundle)(bundle)
    yield* Schema.decodeUnknownEffect(ImportBundle)(encoded)
    return JSON.parse(JSON.stringify(encoded)) as Record<string, any>
  })

const readFixture = (subscribers: boolean) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(exportedAt)
    const read = yield* readStatuspage(fixture, { subscribers })
    return { bundle: yield* checked(read.bundle), skipped: read.skipped }
  })

const key = (kind: string, id: string) => `statuspage/${kind}/${id}`
const core = key("group", "r8k2l0wq7yhd")
const data = key("group", "m3tq9v1xzs0c")
const api = key("component", "8kbf7d35c070")
const dashboard = key("component", "vtnh60py4yd7")
const auth = key("component", "b1fz4nq8wj2p")
const ingestion = key("component", "x9hd3kt6mr1v")
const exportsComponent = key("component", "p0cw7ygs5e2n")
const ftp = key("component", "z6gn4wd8cq1r")
const page = "page kctbh9vrtdwd \"Acme Cloud\""

describe("readStatuspage", () => {
  it.effect("reads the page, its groups and components, and their statuses", () =>
    Effect.gen(function*() {
      const { bundle } = yield* readFixture(false)
      expect(bundle.configuration.version).toBe(1)
      expect(bundle.configuration.pages).toEqual([{
        slug: "acmecloud",
        title: "Acme Cloud",
        description: "Live status of the Acme Cloud API, dashboard and data pipeline.",
        timeZone: "Europe/Berlin",
        domain: "status.example.com",
        items: [{ type: "group", key: core }, { type: "group", key: data }, { type: "component", key: ftp }]
      }])
      expect(bundle.configuration.groups).toEqual([
        { key: core, name: "Core platform", description: "What customers sign in to and call", displayOrder: 1 },
        {
          key: data,
          name: "Data pipeline",
          description: "Collecting, processing and exporting your events",
          displayOrder: 5
        }
      ])
      expect(bundle.configuration.components).toEqual([
        {
          key: api,
          name: "API",
          description: "REST and GraphQL endpoints at api.example.com",
          displayOrder: 2,
          group: core
        },
        {
          key: dashboard,
          name: "Dashboard",
          description: "The web app at app.example.com",
          displayOrder: 3,
          group: core
        },
        {
          key: auth,
          name: "Authentication",
          description: "Password and single sign-on (SAML, OIDC) sign-in",
          displayOrder: 4,
          group: core
        },
        {
          key: ingestion,
          name: "Ingestion",
          description: "Event collection and processing",
          displayOrder: 6,
          group: data
        },
        {
          key: exportsComponent,
          name: "Exports",
          description: "Scheduled CSV and Parquet exports",
          displayOrder: 7,
          group: data
        },
        {
          key: ftp,
          name: "Legacy FTP upload",
          description: "Retired on 30 June 2025: use the HTTPS upload API instead.",
          displayOrder: 8,
          group: null
        }
      ])
      expect(bundle.componentStatuses).toEqual({
        [api]: "operational",
        [dashboard]: "degraded",
        [auth]: "operational",
        [ingestion]: "partial_outage",
        [exportsComponent]: "maintenance",
        [ftp]: "major_outage"
      })
    }))

  it.effect("reads incidents with their whole timeline, oldest first, and the maintenance still to come", () =>
    Effect.gen(function*() {
      const { bundle } = yield* readFixture(false)
      expect(bundle.incidents).toEqual([
        {
          key: key("incident", "2rn9vqk4xm8d"),
          title: "Delayed data in dashboards",
          severity: "minor",
          components: [dashboard, ingestion],
          updates: [
            {
              status: "investigating",
              message: "Charts in the dashboard show data up to 40 minutes old. We are investigating.",
              createdAt: "2025-11-04T14:31:52.483Z"
            },
            {
              status: "identified",
              message:
                "A queue consumer in one region is falling behind. We are adding capacity; no events have been lost.",
              createdAt: "2025-11-04T15:20:44.902Z"
            }
          ]
        },
        {
          key: key("incident", "f3p8zn6w1kqt"),
          title: "API error rate elevated",
          severity: "major",
          components: [api],
          updates: [
            {
              status: "investigating",
              message: "About 8% of API requests fail with 502. We are investigating.",
              createdAt: "2025-10-21T09:02:11.407Z"
            },
            {
              status: "identified",
              message: "A faulty load balancer configuration was rolled out to one region. We are rolling it back.",
              createdAt: "2025-10-21T09:37:02.664Z"
            },
            {
              status: "monitoring",
              message: "The rollback is complete and error rates are back to normal. We are monitoring.",
              createdAt: "2025-10-21T10:15:48.021Z"
            },
            { status: "resolved", message: "This incident has been resolved.", createdAt: "2025-10-21T11:02:37.250Z" }
          ]
        },
        {
          key: key("incident", "j2mc8ty5qw9b"),
          title: "Sign-in failures for single sign-on users",
          severity: "critical",
          components: [auth, dashboard],
          updates: [
            // Dated as Statuspage shows it (display_at), before it was posted.
            {
              status: "investigating",
              message: "Users of single sign-on cannot sign in. Password sign-in works. We are investigating.",
              createdAt: "2025-09-16T07:40:00.000Z"
            },
            {
              status: "identified",
              message: "A signing certificate was removed too early. We are restoring it.",
              createdAt: "2025-09-16T08:21:15.773Z"
            },
            {
              status: "resolved",
              message: "Single sign-on works again for every identity provider.",
              createdAt: "2025-09-16T09:05:12.840Z"
            },
            // Statuspage's `postmortem` update: the incident stays resolved.
            {
              status: "resolved",
              message: "We have published a postmortem of this incident.",
              createdAt: "2025-09-19T12:10:44.581Z"
            }
          ]
        },
        {
          key: key("incident", "t4zr1hw7ks3f"),
          title: "Slow CSV exports",
          severity: "minor",
          components: [exportsComponent],
          updates: [
            {
              status: "investigating",
              message: "Scheduled CSV exports are taking several hours longer than usual.",
              createdAt: "2025-08-14T13:05:22.698Z"
            },
            {
              status: "monitoring",
              message: "We added export workers and the backlog is shrinking.",
              createdAt: "2025-08-14T15:30:09.540Z"
            },
            {
              status: "resolved",
              message: "All delayed exports have been delivered.",
              createdAt: "2025-08-14T16:44:51.117Z"
            }
          ]
        }
      ])
      expect(bundle.configuration.maintenance).toEqual([
        {
          key: key("maintenance", "w5y8jcz0ptl3"),
          title: "Export storage migration",
          description:
            "We are moving export files to new storage. Scheduled exports will run late during the window; " +
            "files already delivered stay available.",
          scheduledStart: "2025-11-04T15:00:00.000Z",
          scheduledEnd: "2025-11-04T19:00:00.000Z",
          components: [exportsComponent]
        },
        {
          key: key("maintenance", "c7kq2m9xv4hz"),
          title: "Database upgrade",
          description: "We are upgrading the primary database cluster. API requests and sign-ins may fail for up to " +
            "five minutes during the window.",
          scheduledStart: "2025-11-18T22:00:00.000Z",
          scheduledEnd: "2025-11-19T01:00:00.000Z",
          components: [api, auth]
        }
      ])
    }))

  it.effect("says what it left out, and why", () =>
    Effect.gen(function*() {
      const { skipped } = yield* readFixture(false)
      expect(skipped.map(({ record }) => record)).toEqual([
        `${page}: url, support_url`,
        `${page}: branding, css_body_background_color, css_font_color, css_light_font_color, css_greens, ` +
        "css_yellows, css_oranges, css_blues, css_reds, css_border_color, css_graph_color, css_link_color, css_no_data",
        `${page}: notifications_from_email, notifications_email_footer`,
        `${page}: allow_incident_subscribers, allow_sms_subscribers, allow_webhook_subscribers`,
        `${page}: twitter_username, city, country`,
        "component p0cw7ygs5e2n \"Exports\": showcase",
        "component z6gn4wd8cq1r \"Legacy FTP upload\": only_show_if_degraded",
        "component z6gn4wd8cq1r \"Legacy FTP upload\": showcase",
        "maintenance h6vd0bx3nr7y \"Network maintenance\"",
        "incident j2mc8ty5qw9b \"Sign-in failures for single sign-on users\": postmortem_body"
      ])
      const reason = (record: string) => skipped.find((skip) => skip.record === record)?.reason
      expect(reason("maintenance h6vd0bx3nr7y \"Network maintenance\"")).toBe(
        "completed: only maintenance still to come or in progress is imported"
      )
      expect(reason("component z6gn4wd8cq1r \"Legacy FTP upload\": only_show_if_degraded")).toBe(
        "no counterpart: a public component is always shown here"
      )
      expect(reason(`${page}: url, support_url`)).toBe("no counterpart; add them as the page's footer links if wanted")
    }))

  it.effect("reads subscribers only when asked: e-mail ones that are not quarantined, following what they chose", () =>
    Effect.gen(function*() {
      const without = yield* readFixture(false)
      expect(without.bundle.subscribers).toBeUndefined()
      expect(without.skipped.filter(({ record }) => record.startsWith("subscriber"))).toEqual([])

      const { bundle, skipped } = yield* readFixture(true)
      expect(bundle.subscribers).toEqual([
        // Every component at Statuspage: the whole page here.
        { email: "ops@example.com", page: "acmecloud", components: null, subscribedAt: "2019-04-02T08:11:45.320Z" },
        {
          email: "jamie.rivera@customer.test",
          page: "acmecloud",
          components: [api, auth],
          subscribedAt: "2023-02-17T16:27:03.842Z"
        },
        // Their group and its two components: the two components.
        {
          email: "data-team@customer.test",
          page: "acmecloud",
          components: [ingestion, exportsComponent],
          subscribedAt: "2024-09-05T10:02:58.119Z"
        }
      ])
      expect(skipped.filter(({ record }) => record.startsWith("subscriber"))).toEqual([
        {
          record: "subscriber x2vf5hq8nd3c (sms)",
          reason: "text messages are not sent here: only e-mail subscribers are imported"
        },
        {
          record: "subscriber n4ds9pw1ky6g (webhook)",
          reason: "a reader's own webhook has no counterpart here (webhooks are set up by operators): " +
            "only e-mail subscribers are imported"
        },
        {
          record: "subscriber c8mr3zt6vb0q (slack)",
          reason: "chat subscriptions have no counterpart here (connect the channel as a webhook): " +
            "only e-mail subscribers are imported"
        },
        {
          record: "subscriber q1hw6yd9ms4l (email)",
          reason: "quarantined at the source since 2025-09-02T06:15:22.481Z (mail to them failed): not imported"
        }
      ])
    }))

  it.effect("leaves out maintenance that has ended, whatever its status at the source", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-11-05T00:00:00Z"))
      const read = yield* readStatuspage(fixture, { subscribers: false })
      expect(read.bundle.configuration.maintenance?.map(({ key }) => key)).toEqual([key("maintenance", "c7kq2m9xv4hz")])
      expect(read.skipped).toContainEqual({
        record: "maintenance w5y8jcz0ptl3 \"Export storage migration\"",
        reason: "ended 2025-11-04T19:00:00.000Z though still in_progress: only maintenance to come is imported"
      })
    }))

  it.effect("reads a list saved page by page, arrays one after another, each record once", () =>
    Effect.gen(function*() {
      const components = yield* fixtureJson("components.json")
      // Two pages of four, the second repeating the first's last record (the list moved between the requests).
      const pages = `${JSON.stringify(components.slice(0, 4))}\n${JSON.stringify(components.slice(3), null, 2)}\n`
      const expected = yield* readFixture(true)
      const read = yield* withExport({ "components.json": pages }, (dir) => readStatuspage(dir, { subscribers: true }))
      expect(yield* checked(read.bundle)).toEqual(expected.bundle)
    }))

  it.effect("reads an export of the page and its components only", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(exportedAt)
      const read = yield* withExport(
        { "component-groups.json": null, "incidents.json": null, "subscribers.json": null },
        (dir) => readStatuspage(dir, { subscribers: true })
      )
      const bundle = yield* checked(read.bundle)
      // The groups as components.json lists them: no description there.
      expect(bundle.configuration.groups).toEqual([
        { key: core, name: "Core platform", displayOrder: 1 },
        { key: data, name: "Data pipeline", displayOrder: 5 }
      ])
      expect(bundle.configuration.components).toHaveLength(6)
      expect(bundle.configuration.maintenance).toBeUndefined()
      expect(bundle.incidents).toBeUndefined()
      expect(bundle.subscribers).toEqual([])
    }))

  describe("refuses an export it cannot read, naming the file and the record", () => {
    const refusal = (changes: Record<string, string | null>) =>
      withExport(changes, (dir) =>
        readStatuspage(dir, { subscribers: false }).pipe(
          Effect.flip,
          Effect.map((error) => ({ dir, tag: error._tag, message: error.message }))
        ))

    it.effect("a missing components.json", () =>
      Effect.gen(function*() {
        const { dir, message, tag } = yield* refusal({ "components.json": null })
        expect(tag).toBe("ImportSourceError")
        expect(message).toBe(
          `components.json: missing from ${dir}, and it is required (docs/migrating.md says how to fetch it)`
        )
      }))

    it.effect("a file that is not JSON", () =>
      Effect.gen(function*() {
        const text = yield* Effect.promise(() => readFile(join(fixture, "incidents.json"), "utf8"))
        const { message } = yield* refusal({ "incidents.json": text.slice(0, 2000) })
        expect(message).toMatch(/^incidents\.json: not JSON: /)
      }))

    it.effect("a component whose group_id names no group", () =>
      Effect.gen(function*() {
        const components = yield* fixtureJson("components.json")
        const changed = components.map((component) =>
          component.id === "8kbf7d35c070" ? { ...component, group_id: "n0gr0up5t4y1" } : component
        )
        const { message } = yield* refusal({ "components.json": JSON.stringify(changed) })
        expect(message).toBe(
          "components.json: component 8kbf7d35c070 \"API\": group_id n0gr0up5t4y1 names no group: no component " +
            "with group: true, nor any entry of component-groups.json, has that id"
        )
      }))

    it.effect("an incident without updates", () =>
      Effect.gen(function*() {
        const incidents = yield* fixtureJson("incidents.json")
        const changed = incidents.map((incident) =>
          incident.id === "f3p8zn6w1kqt" ? { ...incident, incident_updates: [] } : incident
        )
        const { message } = yield* refusal({ "incidents.json": JSON.stringify(changed) })
        expect(message).toBe(
          "incidents.json: incident f3p8zn6w1kqt \"API error rate elevated\": has no incident_updates: " +
            "an incident comes with its timeline, as the API lists it"
        )
      }))

    it.effect("a record the API would not answer", () =>
      Effect.gen(function*() {
        const components = yield* fixtureJson("components.json")
        const changed = components.map(({ name: _name, ...component }) => component)
        const { message } = yield* refusal({ "components.json": JSON.stringify(changed) })
        expect(message).toMatch(/^components\.json: component r8k2l0wq7yhd: name: /)
      }))

    it.effect("a list that is not an array", () =>
      Effect.gen(function*() {
        const { message } = yield* refusal({ "component-groups.json": "{\"component_groups\": []}" })
        expect(message).toBe(
          "component-groups.json: must hold a JSON array, the list the manage API answers (or several, one per page)"
        )
      }))
  })
})
