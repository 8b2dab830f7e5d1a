/**
 * The real side of the visibility model test (test/catalog/visibilityModel.test.ts): the service
 * on a fresh database (emptied before each run), the operator acts it is driven by (over HTTP
 * with the suite's API key; the maintenance clock's passes at the TestClock's time), and after
 * each act the comparison of every public surface and the subscriber mail with `VisibilityModel`
 * (`VisibilitySurfaces`). A failure names the steps so far and the surface that differed.
 */
import { Cause, Clock, ConfigProvider, DateTime, Duration, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock, TestConsole } from "effect/testing"
import type * as fc from "fast-check"

import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import { MailDeliveries } from "../../src/services/notifications/mail/MailDeliveries.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { removeDefaultLogger } from "./Logs.js"
import { freshDatabaseUrl } from "./TestDatabase.js"
import { TestStack } from "./TestServer.js"
import type { VisibilityModel } from "./VisibilityModel.js"
import { compareSurfaces, expectAnswer, Mismatch, syncWindows } from "./VisibilitySurfaces.js"

export type Command = fc.AsyncCommand<VisibilityModel, VisibilityRun, false>

/** A fresh database as `TestServer` makes one. */
const config = Layer.unwrap(Effect.map(
  freshDatabaseUrl,
  ({ url }) => ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))
))

const Stack = Layer.mergeAll(
  MaintenanceWindows.layer,
  MailDeliveries.layer,
  OutboxRepo.layer,
  StateChanges.layer
).pipe(
  Layer.provideMerge(TestStack(config)),
  Layer.provide(Layer.effectDiscard(TestClock.setTime(Date.now()))),
  Layer.provideMerge(Layer.mergeAll(TestConsole.layer, TestClock.layer(), removeDefaultLogger))
)
type Services = Layer.Success<typeof Stack>

const statuses = (labels: ReadonlyArray<string> | undefined, model: VisibilityModel) =>
  labels === undefined
    ? undefined
    : Object.fromEntries(labels.map((label) => [model.components.get(label)!.id, "degraded"]))

const ids = (labels: ReadonlyArray<string> | undefined, model: VisibilityModel) =>
  labels?.map((label) => model.components.get(label)!.id)

/** ISO 8601 to the second, as the API takes it. */
const isoSeconds = (millis: number) => new Date(Math.floor(millis / 1000) * 1000).toISOString().replace(".000Z", "Z")

const listText = (labels: ReadonlyArray<string>) => `[${labels.join(", ")}]`
const statusesText = (labels: ReadonlyArray<string>) => `{${labels.join(", ")}}`
const namingText = (componentIds: ReadonlyArray<string> | undefined, keys: ReadonlyArray<string> | undefined) =>
  `${componentIds === undefined ? "" : `, componentIds ${listText(componentIds)}`}${
    keys === undefined ? "" : `, componentStatuses ${statusesText(keys)}`
  }`

/**
 * The service on a fresh database, for one property: each run starts from `startRun`, which
 * empties what the runs before it made (components, incidents, windows, templates, events, mail)
 * and rebuilds the public snapshot, rather than paying a start of the service per run.
 */
export const openStack = async () => {
  const runtime = ManagedRuntime.make(Stack)
  const stats: RunStats = { runs: 0, steps: 0, mailed: 0, withheld: 0 }
  await runtime.runPromise(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql`insert into subscribers (email, unsubscribe_token, verified_at, page_id)
        select 'reader@example.test', 'reader-token', now(), id from status_pages where is_default`
    )
  )
  return {
    startRun: async () => {
      await runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const changes = yield* StateChanges
        // A change that says nothing of what it touched has the public side read everything again.
        yield* changes.commit(
          sql`truncate components, incidents, maintenance_windows, incident_templates, outbox_events, mail_deliveries
              cascade`
        )
      }))
      stats.runs++
      return new VisibilityRun(runtime, stats)
    },
    stats,
    dispose: () => runtime.dispose()
  }
}

/** What a property's runs did, for its log line: whether mail went out and was withheld at all. */
export interface RunStats {
  runs: number
  steps: number
  /** Events of public items, mailed. */
  mailed: number
  /** Events of items the public may not see, not mailed. */
  withheld: number
}

export class VisibilityRun {
  /** The steps run so far, as an operator would read them. */
  readonly trace: Array<string> = []
  /** Labels by id, so reports name `m1#2` rather than a UUID. */
  readonly labels = new Map<string, string>()

  constructor(
    private readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>,
    readonly stats: RunStats
  ) {}

  labelOf(id: string) {
    return this.labels.get(id) ?? id
  }

  /** Runs `act`, reads the windows back, then compares every surface; throws the report on a difference. */
  private async step(model: VisibilityModel, description: string, act: Effect.Effect<void, unknown, Services>) {
    this.trace.push(description)
    this.stats.steps++
    const exit = await this.runtime.runPromiseExit(
      act.pipe(Effect.andThen(syncWindows(model, this)), Effect.andThen(compareSurfaces(model, this)))
    )
    if (Exit.isSuccess(exit)) return
    const steps = this.trace.map((line, index) => `  ${index + 1}. ${line}`).join("\n")
    const failure = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
    const what = !(failure instanceof Mismatch)
      ? Cause.pretty(exit.cause)
      : `surface ${failure.surface} differs from the model:\n  ${failure.detail}`
    throw new Error(`after step ${this.trace.length} (${description}), ${what}\nsteps:\n${steps}`)
  }

  createComponent(model: VisibilityModel, c: string, isPublic: boolean) {
    return this.step(
      model,
      `createComponent(${c}, ${isPublic ? "public" : "private"})`,
      Effect.gen({ self: this }, function*() {
        const created = yield* expectAnswer("POST", "/api/v1/admin/components", 201, {
          name: `Component [${c}]`,
          isPublic
        })
        this.labels.set(created.id, c)
        model.addComponent(c, created.id, isPublic)
      })
    )
  }

  setComponentPublic(model: VisibilityModel, c: string, isPublic: boolean) {
    const path = `/api/v1/admin/components/${model.components.get(c)!.id}`
    return this.step(
      model,
      `${isPublic ? "showComponent" : "hideComponent"}(${c})`,
      Effect.map(expectAnswer("PUT", path, 200, { isPublic }), () => model.setComponentPublic(c, isPublic))
    )
  }

  deleteComponent(model: VisibilityModel, c: string) {
    const path = `/api/v1/admin/components/${model.components.get(c)!.id}`
    return this.step(
      model,
      `deleteComponent(${c})`,
      Effect.map(expectAnswer("DELETE", path, 204), () => model.deleteComponent(c))
    )
  }

  createIncident(
    model: VisibilityModel,
    i: string,
    options: {
      readonly template?: string
      readonly ids: ReadonlyArray<string> | undefined
      readonly statuses: ReadonlyArray<string> | undefined
      readonly draft: boolean
    }
  ) {
    const { draft, template } = options
    const description = template === undefined
      ? `createIncident(${i}${namingText(options.ids, options.statuses)}${draft ? ", draft" : ""})`
      : `createIncidentFromTemplate(${i}, ${template}${namingText(options.ids, options.statuses)}${
        draft ? ", draft" : ""
      })`
    return this.step(
      model,
      description,
      Effect.gen({ self: this }, function*() {
        const created = yield* expectAnswer("POST", "/api/v1/admin/incidents", 201, {
          title: `Incident [${i}]`,
          message: `Looking into [${i}]`,
          ...(template === undefined ? {} : { templateId: model.templates.get(template)!.id }),
          ...(options.ids === undefined ? {} : { componentIds: ids(options.ids, model) }),
          ...(options.statuses === undefined ? {} : { componentStatuses: statuses(options.statuses, model) }),
          ...(draft ? { published: false } : {})
        })
        this.labels.set(created.id, i)
        const incident = { label: i, id: created.id, title: `Incident [${i}]`, published: !draft }
        if (template === undefined) model.createIncident(incident, options.ids ?? [], options.statuses ?? [])
        else model.createIncidentFromTemplate(incident, template, options.ids, options.statuses ?? [])
      })
    )
  }

  patchIncident(
    model: VisibilityModel,
    i: string,
    componentIds: ReadonlyArray<string> | undefined,
    keys: ReadonlyArray<string> | undefined
  ) {
    return this.step(
      model,
      `patchIncident(${i}${namingText(componentIds, keys)})`,
      Effect.gen(function*() {
        yield* expectAnswer("PUT", `/api/v1/admin/incidents/${model.incidents.get(i)!.id}`, 200, {
          severity: "major",
          ...(componentIds === undefined ? {} : { componentIds: ids(componentIds, model) }),
          ...(keys === undefined ? {} : { componentStatuses: statuses(keys, model) })
        })
        model.updateIncident(i, componentIds, keys)
      })
    )
  }

  addUpdate(
    model: VisibilityModel,
    i: string,
    status: "identified" | "monitoring" | "resolved",
    keys: ReadonlyArray<string> | undefined
  ) {
    return this.step(
      model,
      `addUpdate(${i}, ${status}${namingText(undefined, keys)})`,
      Effect.gen(function*() {
        yield* expectAnswer("POST", `/api/v1/admin/incidents/${model.incidents.get(i)!.id}/updates`, 201, {
          status,
          message: `Update on [${i}]`,
          ...(keys === undefined ? {} : { componentStatuses: statuses(keys, model) })
        })
        model.addIncidentUpdate(i, keys, status === "resolved")
      })
    )
  }

  resolveIncident(model: VisibilityModel, i: string) {
    const path = `/api/v1/admin/incidents/${model.incidents.get(i)!.id}/resolve`
    return this.step(
      model,
      `resolveIncident(${i})`,
      Effect.map(expectAnswer("PATCH", path, 200, { message: `Resolved [${i}]` }), () => model.resolveIncident(i))
    )
  }

  publishIncident(model: VisibilityModel, i: string) {
    const path = `/api/v1/admin/incidents/${model.incidents.get(i)!.id}/publish`
    return this.step(
      model,
      `publishIncident(${i})`,
      Effect.map(expectAnswer("POST", path, 200), () => model.publishIncident(i))
    )
  }

  createTemplate(model: VisibilityModel, t: string, componentIds: ReadonlyArray<string>) {
    return this.step(
      model,
      `createTemplate(${t}, componentIds ${listText(componentIds)})`,
      Effect.gen({ self: this }, function*() {
        const created = yield* expectAnswer("POST", "/api/v1/admin/incident-templates", 201, {
          name: `Template [${t}]`,
          title: `From template [${t}]`,
          message: `Template message [${t}]`,
          componentIds: ids(componentIds, model)
        })
        this.labels.set(created.id, t)
        model.createTemplate({ label: t, id: created.id, title: `From template [${t}]` }, componentIds)
      })
    )
  }

  patchTemplate(model: VisibilityModel, t: string, componentIds: ReadonlyArray<string>) {
    return this.step(
      model,
      `patchTemplate(${t}, componentIds ${listText(componentIds)})`,
      Effect.gen(function*() {
        yield* expectAnswer("PUT", `/api/v1/admin/incident-templates/${model.templates.get(t)!.id}`, 200, {
          componentIds: ids(componentIds, model)
        })
        model.updateTemplate(t, componentIds)
      })
    )
  }

  createWindow(
    model: VisibilityModel,
    w: string,
    componentIds: ReadonlyArray<string>,
    startsIn: Duration.Input,
    recurrence: "weekly" | "daily" | "none"
  ) {
    return this.step(
      model,
      `createWindow(${w}, componentIds ${listText(componentIds)}, starts in ${startsIn}, ${recurrence})`,
      Effect.gen({ self: this }, function*() {
        const start = (yield* Clock.currentTimeMillis) + Duration.toMillis(startsIn)
        const created = yield* expectAnswer("POST", "/api/v1/admin/maintenance", 201, {
          title: `Maintenance [${w}]`,
          description: `Work on [${w}]`,
          scheduledStart: isoSeconds(start),
          scheduledEnd: isoSeconds(start + Duration.toMillis("30 minutes")),
          componentIds: ids(componentIds, model),
          ...(recurrence === "none" ? {} : { recurrence: { frequency: recurrence, interval: 1 } })
        })
        this.labels.set(created.id, w)
        model.createWindow({
          label: w,
          id: created.id,
          title: `Maintenance [${w}]`,
          recurring: recurrence !== "none",
          start: Date.parse(created.scheduledStart)
        }, componentIds)
      })
    )
  }

  patchWindow(model: VisibilityModel, w: string, componentIds: ReadonlyArray<string>) {
    return this.step(
      model,
      `patchWindow(${w}, componentIds ${listText(componentIds)})`,
      Effect.gen(function*() {
        yield* expectAnswer("PUT", `/api/v1/admin/maintenance/${model.windows.get(w)!.id}`, 200, {
          componentIds: ids(componentIds, model)
        })
        model.updateWindow(w, componentIds)
      })
    )
  }

  /** Cancels one occurrence (a series goes on with its next) or, with `series`, the rest of the series. */
  cancelWindow(model: VisibilityModel, w: string, series: boolean) {
    return this.step(
      model,
      series ? `cancelSeries(from ${w})` : `cancelOccurrence(${w})`,
      Effect.asVoid(
        expectAnswer(
          "DELETE",
          `/api/v1/admin/maintenance/${model.windows.get(w)!.id}${series ? "?series=true" : ""}`,
          204
        )
      )
    )
  }

  /** Moves the TestClock on and runs the maintenance clock's pass then, as its fiber would. */
  advanceClock(model: VisibilityModel, by: Duration.Input) {
    return this.step(
      model,
      `advanceClock(${by})`,
      Effect.gen(function*() {
        yield* TestClock.adjust(by)
        const now = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
        const windows = yield* MaintenanceWindows
        yield* Effect.orDie(windows.runDue(now))
        yield* Effect.orDie(windows.runDue(now))
      })
    )
  }
}
