/** `status-page incidents open | update ID | resolve ID | publish ID` */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"

import type { Incident as IncidentType } from "../domain/Incident.js"
import {
  AddIncidentUpdate,
  CreateIncident,
  Incident,
  IncidentId,
  IncidentSeverity,
  IncidentStatus,
  OpenIncidentStatus,
  ResolveIncident
} from "../domain/Incident.js"
import { UsageError } from "./CliFailure.js"
import { body, connection, flagSwitch, print, quoted, withClient } from "./Remote.js"

const id = Argument.String("id").pipe(Argument.withSchema(IncidentId))
const message = Flag.String("message").pipe(Flag.withDescription("The timeline entry (1–5000 characters)"))

const describe = (incident: typeof IncidentType.json.Type) =>
  `${incident.id} ${quoted(incident.title)}: ${incident.status}, severity ${incident.severity}` +
  (incident.published ? "" : " (draft)")

const open = Command.make("open", {
  ...connection,
  template: Flag.String("template").pipe(
    Flag.optional,
    Flag.withDescription("An incident template's id: it fills in every option not given")
  ),
  title: Flag.String("title").pipe(Flag.optional, Flag.withDescription("1–200 characters")),
  message: message.pipe(Flag.optional),
  componentIds: Flag.String("component").pipe(
    Flag.atLeast(0),
    Flag.withDescription("An affected component's id; repeat for several")
  ),
  status: Flag.Literals("status", OpenIncidentStatus.literals).pipe(
    Flag.optional,
    Flag.withDescription("Default: investigating")
  ),
  severity: Flag.Literals("severity", IncidentSeverity.literals).pipe(
    Flag.optional,
    Flag.withDescription("Default: minor")
  ),
  draft: flagSwitch("draft").pipe(
    Flag.withDescription("Open a draft: no one hears of it until `incidents publish ID`")
  )
}, (options) =>
  Effect.gen(function*() {
    const template = Option.getOrUndefined(options.template)
    if (template === undefined && (Option.isNone(options.title) || Option.isNone(options.message))) {
      return yield* new UsageError({ message: "--title and --message are required without --template" })
    }
    const payload = yield* body(CreateIncident, {
      templateId: template,
      title: Option.getOrUndefined(options.title),
      message: Option.getOrUndefined(options.message),
      // With a template and no --component, its components apply.
      componentIds: template !== undefined && options.componentIds.length === 0 ? undefined : options.componentIds,
      status: Option.getOrUndefined(options.status),
      severity: Option.getOrUndefined(options.severity),
      published: options.draft ? false : undefined
    })
    const incident = yield* withClient(options, (client) => client.incidents.create({ payload }))
    yield* print(options, Incident.json, incident, (i) => `Opened incident ${describe(i)}.`)
  })).pipe(Command.withDescription("Open an incident; subscribers and webhooks hear of it (a draft once published)"))

const update = Command.make("update", {
  ...connection,
  id,
  message,
  status: Flag.Literals("status", IncidentStatus.literals).pipe(
    Flag.optional,
    Flag.withDescription("Default: the incident's current status; resolved resolves it")
  )
}, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const status = Option.isSome(options.status)
        ? options.status.value
        : (yield* client.incidents.get({ params: { id: options.id } })).status
      const payload = yield* body(AddIncidentUpdate, { status, message: options.message })
      return yield* client.incidents.addUpdate({ params: { id: options.id }, payload })
    })).pipe(
      Effect.flatMap((incident) => print(options, Incident.json, incident, (i) => `Updated incident ${describe(i)}.`))
    )).pipe(Command.withDescription("Post an update to an incident's timeline"))

const resolve = Command.make("resolve", {
  ...connection,
  id,
  message: message.pipe(Flag.optional, Flag.withDescription("Default: \"This incident has been resolved.\"")),
  restoreComponents: flagSwitch("restore-components").pipe(
    Flag.withDescription(
      "Put its components back to operational, or to what their monitors find; one in maintenance stays so"
    )
  )
}, (options) =>
  Effect.gen(function*() {
    const payload = Option.isSome(options.message) || options.restoreComponents
      ? yield* body(ResolveIncident, {
        message: Option.getOrUndefined(options.message),
        restoreComponents: options.restoreComponents ? true : undefined
      })
      : null
    const incident = yield* withClient(options, (client) =>
      client.incidents.resolve({ params: { id: options.id }, payload }))
    yield* print(options, Incident.json, incident, (i) =>
      `Resolved incident ${describe(i)}.`)
  })).pipe(Command.withDescription("Resolve an incident; resolving it twice is refused"))

const publish = Command.make(
  "publish",
  { ...connection, id },
  (options) =>
    withClient(options, (client) => client.incidents.publish({ params: { id: options.id } })).pipe(
      Effect.flatMap((incident) => print(options, Incident.json, incident, (i) => `Published incident ${describe(i)}.`))
    )
).pipe(
  Command.withDescription(
    "Publish a draft incident: the status page shows it, subscribers and webhooks hear of it; a published one stays as it is"
  )
)

export const IncidentsCommand = Command.make("incidents").pipe(
  Command.withDescription("Incidents and their timelines"),
  Command.withSubcommands([open, update, resolve, publish])
)
