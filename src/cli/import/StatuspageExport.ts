/**
 * An export of Atlassian Statuspage as `status-page import statuspage <dir>` reads it
 * (docs/migrating.md, "From Atlassian Statuspage"): one file per list of the manage API (REST API
 * v1), each what `GET https://api.statuspage.io/v1/pages/{page_id}/<endpoint>` answers, a list's
 * pages concatenated. Only the fields the import maps are read, under Atlassian's names; a record
 * the API would not answer is refused, naming its file, its id and its first wrong field. Its
 * words and what they are here end the module.
 */
import { readFile, stat } from "node:fs/promises"
import { join } from "node:path"

import { DateTime, Effect, Option, Result, Schema } from "effect"

import { fieldIssues, pathWords } from "../../api/IssueMessages.js"
import type { ComponentStatus } from "../../domain/Component.js"
import { pattern } from "../../domain/Fields.js"
import type { IncidentSeverity, IncidentStatus } from "../../domain/Incident.js"
import { ImportSourceError } from "./ImportSourceError.js"

/** The files of an export. page.json and components.json are required; a missing other list holds nothing. */
export const statuspageFiles = {
  page: "page.json",
  components: "components.json",
  groups: "component-groups.json",
  incidents: "incidents.json",
  subscribers: "subscribers.json"
} as const

const Maybe = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))
const SourceId = Schema.String.check(
  pattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, "must be an id such as 8kbf7d35c070")
)
const Instant = Schema.String.check(
  Schema.makeFilter((value: string) =>
    (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && Option.isSome(DateTime.make(value))) ||
    "must be an ISO 8601 date and time such as 2025-10-21T09:02:11Z"
  )
)

/** `GET /pages/{page_id}`; its other settings are read apart, to say which are left out. */
export const SourcePage = Schema.Struct({
  id: SourceId,
  name: Schema.String,
  subdomain: Maybe(Schema.String),
  page_description: Maybe(Schema.String),
  headline: Maybe(Schema.String),
  time_zone: Maybe(Schema.String),
  domain: Maybe(Schema.String)
})
export type SourcePage = typeof SourcePage.Type

/** `GET /pages/{page_id}/components`: components, and groups (`group: true`) among them. */
export const SourceComponent = Schema.Struct({
  id: SourceId,
  name: Schema.String,
  description: Maybe(Schema.String),
  position: Maybe(Schema.Int),
  status: Maybe(Schema.String),
  group: Maybe(Schema.Boolean),
  group_id: Maybe(SourceId),
  showcase: Maybe(Schema.Boolean),
  only_show_if_degraded: Maybe(Schema.Boolean)
})
export type SourceComponent = typeof SourceComponent.Type

/** `GET /pages/{page_id}/component-groups`. */
export const SourceGroup = Schema.Struct({
  id: SourceId,
  name: Schema.String,
  description: Maybe(Schema.String),
  components: Maybe(Schema.Array(SourceId)),
  // Atlassian's reference types it as a string: a number or a string of digits is read.
  position: Maybe(Schema.Union([Schema.Int, Schema.String.check(pattern(/^-?\d{1,9}$/, "must be an integer"))]))
})
export type SourceGroup = typeof SourceGroup.Type

export const SourceIncidentUpdate = Schema.Struct({
  id: SourceId,
  status: Schema.String,
  body: Maybe(Schema.String),
  created_at: Instant,
  display_at: Maybe(Instant)
})
export type SourceIncidentUpdate = typeof SourceIncidentUpdate.Type

/** `GET /pages/{page_id}/incidents`: realtime incidents and scheduled maintenance (`scheduled_for` set). */
export const SourceIncident = Schema.Struct({
  id: SourceId,
  name: Schema.String,
  status: Schema.String,
  impact: Maybe(Schema.String),
  impact_override: Maybe(Schema.String),
  created_at: Instant,
  updated_at: Maybe(Instant),
  resolved_at: Maybe(Instant),
  scheduled_for: Maybe(Instant),
  scheduled_until: Maybe(Instant),
  postmortem_body: Maybe(Schema.String),
  components: Maybe(Schema.Array(Schema.Struct({ id: SourceId }))),
  incident_updates: Maybe(Schema.Array(SourceIncidentUpdate))
})
export type SourceIncident = typeof SourceIncident.Type

/** `GET /pages/{page_id}/subscribers`. */
export const SourceSubscriber = Schema.Struct({
  id: SourceId,
  mode: Maybe(Schema.String),
  email: Maybe(Schema.String),
  components: Maybe(Schema.Array(SourceId)),
  quarantined_at: Maybe(Instant),
  created_at: Instant
})
export type SourceSubscriber = typeof SourceSubscriber.Type

/** An export as read: every list's records, each once. */
export interface StatuspageExport {
  readonly page: SourcePage
  /** page.json as it stands, for the settings without a counterpart. */
  readonly pageSettings: Readonly<Record<string, unknown>>
  readonly components: ReadonlyArray<SourceComponent>
  readonly groups: ReadonlyArray<SourceGroup>
  readonly incidents: ReadonlyArray<SourceIncident>
  /** Read only when asked for. */
  readonly subscribers: ReadonlyArray<SourceSubscriber> | undefined
}

/** `file: record: problem`, the shape of every refusal. */
export const refused = (file: string, record: string, problem: string) =>
  new ImportSourceError({ message: `${file}: ${record}: ${problem}` })

/** How a refusal or a note names a record: `component 8kbf7d35c070 "API"`. */
export const named = (kind: string, record: { readonly id: string; readonly name?: string }) =>
  record.name === undefined ? `${kind} ${record.id}` : `${kind} ${record.id} ${JSON.stringify(record.name)}`

const firstIssue = (error: Schema.SchemaError) => {
  const [issue] = fieldIssues(error.issue)
  if (issue === undefined) return "is not one"
  return issue.path.length > 0 ? `${pathWords(issue.path)}: ${issue.message}` : issue.message
}

/**
 * The JSON values of a file: one value, or several written one after another (`[…][…]`), as the
 * documented loop appends a list's pages. Brackets inside strings do not count.
 */
const jsonValues = (text: string): Array<unknown> => {
  try {
    return [JSON.parse(text)]
  } catch (whole) {
    const values: Array<unknown> = []
    let depth = 0, start = 0, inString = false, escaped = false
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!
      if (inString) {
        if (escaped) escaped = false
        else if (char === "\\") escaped = true
        else if (char === "\"") inString = false
      } else if (char === "\"" && depth > 0) inString = true
      else if (char === "[" || char === "{") {
        if (depth++ === 0) start = i
      } else if ((char === "]" || char === "}") && depth > 0) {
        if (--depth === 0) {
          try {
            values.push(JSON.parse(text.slice(start, i + 1)))
          } catch (error) {
            const line = text.slice(0, start).split("\n").length
            throw new SyntaxError(`${(error as Error).message} (in the value starting on line ${line})`, {
              cause: error
            })
          }
        }
      } else if (depth === 0 && !/\s/.test(char)) throw whole
    }
    if (depth > 0 || values.length < 2) throw whole
    return values
  }
}

/** A file's JSON values; undefined for a missing file that is not `required`. */
const readJson = (dir: string, file: string, required: boolean) =>
  Effect.tryPromise({
    try: async (): Promise<Array<unknown> | undefined> => {
      if (!(await stat(dir)).isDirectory()) throw new Error(`${dir} is not a directory`)
      try {
        return jsonValues(await readFile(join(dir, file), "utf8"))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return undefined
        throw error
      }
    },
    catch: (error) => {
      const { code, message } = error as NodeJS.ErrnoException
      return new ImportSourceError({
        message: code === "ENOENT"
          ? `${file}: missing from ${dir}, and it is required (docs/migrating.md says how to fetch it)`
          : error instanceof SyntaxError
          ? `${file}: not JSON: ${message}`
          : `${file}: cannot be read: ${message}`
      })
    }
  })

/** A list's records, each decoded and each once: one on two pages (the list changed between them) as last seen. */
const readList = <A extends { readonly id: string }>(
  dir: string,
  file: string,
  kind: string,
  decode: (input: unknown) => Result.Result<A, Schema.SchemaError>,
  required = false
) =>
  Effect.gen(function*() {
    const byId = new Map<string, A>()
    for (const value of (yield* readJson(dir, file, required)) ?? []) {
      if (!Array.isArray(value)) {
        return yield* new ImportSourceError({
          message: `${file}: must hold a JSON array, the list the manage API answers (or several, one per page)`
        })
      }
      for (const [index, record] of value.entries()) {
        const decoded = decode(record)
        if (Result.isFailure(decoded)) {
          const id = (record as { id?: unknown } | null)?.id
          const which = typeof id === "string" ? named(kind, { id }) : `${kind} number ${index + 1}`
          return yield* refused(file, which, firstIssue(decoded.failure))
        }
        byId.set(decoded.success.id, decoded.success)
      }
    }
    return [...byId.values()]
  })

/** Reads the export in `dir`; subscribers.json only when `subscribers` is asked for. */
export const readExport = (dir: string, options: { readonly subscribers: boolean }) =>
  Effect.gen(function*() {
    const pageValues = yield* readJson(dir, statuspageFiles.page, true)
    const pageSettings = pageValues?.length === 1 ? pageValues[0] : undefined
    if (pageSettings === null || typeof pageSettings !== "object" || Array.isArray(pageSettings)) {
      return yield* new ImportSourceError({
        message: `${statuspageFiles.page}: must hold one JSON object, the page as GET /v1/pages/{page_id} answers it`
      })
    }
    const page = Schema.decodeUnknownResult(SourcePage)(pageSettings)
    if (Result.isFailure(page)) return yield* refused(statuspageFiles.page, "page", firstIssue(page.failure))
    const read: StatuspageExport = {
      page: page.success,
      pageSettings: pageSettings as Record<string, unknown>,
      components: yield* readList(
        dir,
        statuspageFiles.components,
        "component",
        Schema.decodeUnknownResult(SourceComponent),
        true
      ),
      groups: yield* readList(dir, statuspageFiles.groups, "group", Schema.decodeUnknownResult(SourceGroup)),
      incidents: yield* readList(
        dir,
        statuspageFiles.incidents,
        "incident",
        Schema.decodeUnknownResult(SourceIncident)
      ),
      subscribers: options.subscribers
        ? yield* readList(dir, statuspageFiles.subscribers, "subscriber", Schema.decodeUnknownResult(SourceSubscriber))
        : undefined
    }
    return read
  })

// ---------------------------------------------------------------------------------------------
// Their words, ours

export const componentStatuses = new Map<string, ComponentStatus>([
  ["operational", "operational"],
  ["degraded_performance", "degraded"],
  ["partial_outage", "partial_outage"],
  ["major_outage", "major_outage"],
  ["under_maintenance", "maintenance"]
])

export const incidentStatuses = new Map<string, IncidentStatus>([
  ["investigating", "investigating"],
  ["identified", "identified"],
  ["monitoring", "monitoring"],
  ["resolved", "resolved"],
  // What Statuspage calls a resolved incident once its postmortem is published.
  ["postmortem", "resolved"]
])

// `maintenance` is scheduled maintenance's impact: on an incident it says nothing of severity.
export const severities = new Map<string, IncidentSeverity>([
  ["none", "none"],
  ["minor", "minor"],
  ["major", "major"],
  ["critical", "critical"],
  ["maintenance", "none"]
])

export const maintenanceToCome = new Set(["scheduled", "in_progress", "verifying"])

/** The message of an update without text, and of the closing update a timeline may need: ours always say something. */
export const statusSentence: Record<IncidentStatus, string> = {
  investigating: "Investigating.",
  identified: "The cause has been identified.",
  monitoring: "A fix is in place; monitoring.",
  resolved: "Resolved."
}

const chat = "chat subscriptions have no counterpart here (connect the channel as a webhook)"
/** Why a subscriber reached other than by mail is not imported, by its `mode`. */
export const otherModes: Record<string, string> = {
  sms: "text messages are not sent here",
  webhook: "a reader's own webhook has no counterpart here (webhooks are set up by operators)",
  slack: chat,
  teams: chat
}

const isSet = (value: unknown) => value !== null && value !== undefined && value !== false && value !== ""

/** The page's settings without a counterpart, by field (`*` ends a prefix), when `applies` to their value. */
export const pageSettingsLeftOut: ReadonlyArray<{
  readonly fields: ReadonlyArray<string>
  readonly applies: (value: unknown) => boolean
  readonly reason: string
}> = [
  {
    fields: ["url", "support_url"],
    applies: isSet,
    reason: "no counterpart; add them as the page's footer links if wanted"
  },
  {
    fields: ["branding", "css_*", "favicon_logo", "transactional_logo", "hero_cover", "email_logo", "twitter_logo"],
    applies: isSet,
    reason: "a page's look here is a brand colour and a logo (brandColor, logoUrl): set them after the import"
  },
  {
    fields: ["viewers_must_be_team_members", "ip_restrictions"],
    applies: isSet,
    reason: "the page was restricted and the imported page is public: make it protected (a password) before sharing it"
  },
  {
    fields: ["notifications_from_email", "notifications_email_footer"],
    applies: isSet,
    reason: "mail is sent from MAIL_FROM, in the service's own words"
  },
  {
    fields: ["allow_incident_subscribers", "allow_sms_subscribers", "allow_webhook_subscribers"],
    applies: (value) => value === true,
    reason: "no counterpart: readers subscribe by e-mail, to the page or to the components they choose"
  },
  {
    fields: ["allow_page_subscribers", "allow_email_subscribers", "allow_rss_atom_feeds"],
    applies: (value) => value === false,
    reason: "always offered here"
  },
  {
    fields: ["twitter_username", "hidden_from_search", "city", "state", "country"],
    applies: isSet,
    reason: "no counterpart"
  }
]
