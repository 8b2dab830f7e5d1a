/**
 * Maintenance: scheduling a window against components (once or repeated), editing it, and
 * cancelling it (for a series: one occurrence, or it and all later ones). Times are entered in
 * the browser's time zone and sent as UTC.
 */
import { DateTime, Effect, Schema } from "effect"
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { Component } from "../../../../domain/Component.js"
import { CreateMaintenance, type Maintenance, UpdateMaintenance } from "../../../../domain/Maintenance.js"
import { type RecurrenceFrequency, repeatsEvery } from "../../../../domain/Recurrence.js"
import { maintenanceStatusLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import { useLiveRefresh } from "../core/live.js"
import type { Screen } from "../core/Screen.js"
import { type ComponentId, componentNames, ComponentPicker } from "../ui/ComponentPicker.js"
import { ConfirmButton, VisibilityBadge, When } from "../ui/feedback.js"
import { SelectField, TextArea, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import {
  FreshEditor,
  InlineSection,
  NewSection,
  OpenButton,
  ResourceCard,
  ResourceCards,
  ResourceForm,
  type ResourceFormProps,
  ResourcePage,
  useOpenPart,
  useRowActions
} from "../ui/resources.js"

type WindowJson = typeof Maintenance.json.Type
type ComponentJson = typeof Component.json.Type

const pad = (n: number) => String(n).padStart(2, "0")

/** A `datetime-local` value (the browser's local time) for an instant. */
const toLocalInput = (at: DateTime.Utc) => {
  const d = DateTime.toDate(at)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** The UTC timestamp the API takes; a value the browser cannot read is passed on for the schema to name. */
const toUtc = (local: string) => {
  const time = new Date(local).getTime()
  return Number.isNaN(time) ? local : new Date(time).toISOString()
}

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone

type Repeat = "never" | RecurrenceFrequency

const repeatOptions: ReadonlyArray<{ readonly value: Repeat; readonly label: string }> = [
  { value: "never", label: "Never" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" }
]

const intervalUnit: Record<RecurrenceFrequency, string> = { daily: "days", weekly: "weeks", monthly: "months" }

/** A number typed in a field; text that is not one is passed on for the schema to name. */
const numberOrText = (text: string) => {
  const trimmed = text.trim()
  return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed
}

const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((id) => b.includes(id))

const WindowForm = (props: ResourceFormProps<WindowJson> & { readonly components: ReadonlyArray<ComponentJson> }) => {
  const { initial } = props
  const [title, setTitle] = useState(initial?.title ?? "")
  const [description, setDescription] = useState(initial?.description ?? "")
  const [start, setStart] = useState(initial ? toLocalInput(initial.scheduledStart) : "")
  const [end, setEnd] = useState(initial ? toLocalInput(initial.scheduledEnd) : "")
  const [componentIds, setComponentIds] = useState<ReadonlyArray<ComponentId>>(initial?.componentIds ?? [])
  const [repeat, setRepeat] = useState<Repeat>("never")
  const [everyText, setEveryText] = useState("1")
  const [until, setUntil] = useState("")
  const [count, setCount] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()
  const [endError, setEndError] = useState<string | undefined>(undefined)

  const save = async () => {
    const fields = {
      title: title.trim(),
      description,
      scheduledStart: toUtc(start),
      scheduledEnd: toUtc(end),
      componentIds
    }
    const recurrence = repeat === "never" ? null : {
      frequency: repeat,
      interval: numberOrText(everyText),
      ...(until.trim() === "" ? {} : { until: toUtc(until) }),
      ...(count.trim() === "" ? {} : { count: numberOrText(count) })
    }
    // An edit sends only what changed: a running window refuses a new start, and setting the
    // components decides again whether the window is public. A series' rule never changes.
    const payload = initial === undefined ? { ...fields, recurrence } : {
      ...(fields.title !== initial.title ? { title: fields.title } : {}),
      ...(description !== initial.description ? { description } : {}),
      ...(start !== toLocalInput(initial.scheduledStart) ? { scheduledStart: fields.scheduledStart } : {}),
      ...(end !== toLocalInput(initial.scheduledEnd) ? { scheduledEnd: fields.scheduledEnd } : {}),
      ...(sameIds(componentIds, initial.componentIds) ? {} : { componentIds })
    }
    // Said here, next to the field, rather than as the server's sentence about the whole form.
    const startTime = Date.parse(fields.scheduledStart)
    const endTime = Date.parse(fields.scheduledEnd)
    setEndError(
      !Number.isNaN(startTime) && !Number.isNaN(endTime) && endTime <= startTime ? "Must be after the start" : undefined
    )
    if (!Number.isNaN(startTime) && !Number.isNaN(endTime) && endTime <= startTime) return
    // The form holds strings: decoding them with the API's own schema names any bad field before sending.
    const outcome = await submit((api) =>
      initial
        ? Effect.flatMap(Schema.decodeUnknownEffect(UpdateMaintenance)(payload), (decoded) =>
          api.maintenance.update({ params: { id: initial.id }, payload: decoded }).pipe(withIfMatch(props.etag)))
        : Effect.flatMap(Schema.decodeUnknownEffect(CreateMaintenance)(payload), (decoded) =>
          api.maintenance.create({ payload: decoded }))
    )
    if (outcome.ok) {
      if (!initial) {
        setTitle("")
        setDescription("")
        setStart("")
        setEnd("")
        setComponentIds([])
        setRepeat("never")
        setEveryText("1")
        setUntil("")
        setCount("")
      }
      props.onSaved(outcome.value)
    }
  }

  const hint = `Your local time (${timeZone}).`
  return (
    <ResourceForm {...props} failure={failure} busy={busy} onSubmit={save}>
      <TextField
        id={`${props.id}-name`}
        label="Title"
        required
        value={title}
        onInput={setTitle}
        error={fieldError("title")}
      />
      <TextArea
        id={`${props.id}-description`}
        label="Description"
        value={description}
        onInput={setDescription}
        error={fieldError("description")}
      />
      <TextField
        id={`${props.id}-start`}
        label="Starts"
        type="datetime-local"
        required
        hint={hint}
        value={start}
        onInput={setStart}
        error={fieldError("scheduledStart")}
      />
      <TextField
        id={`${props.id}-end`}
        label="Ends"
        type="datetime-local"
        required
        hint={hint}
        value={end}
        onInput={setEnd}
        error={endError ?? fieldError("scheduledEnd")}
      />
      <ComponentPicker
        id={`${props.id}-affects`}
        legend="Components under maintenance"
        components={props.components}
        selected={componentIds}
        onChange={setComponentIds}
        error={fieldError("componentIds")}
      />
      {initial === undefined && (
        <>
          <SelectField
            id={`${props.id}-repeat`}
            label="Repeat"
            value={repeat}
            options={repeatOptions}
            onChange={setRepeat}
            hint="Occurrences keep the start's time of day in the organization's time zone (Settings)."
            error={repeat === "never" ? fieldError("recurrence") : undefined}
          />
          {repeat !== "never" && (
            <>
              <TextField
                id={`${props.id}-interval`}
                label={`Every how many ${intervalUnit[repeat]}`}
                type="number"
                inputMode="numeric"
                required
                hint="1 to 52."
                value={everyText}
                onInput={setEveryText}
                error={fieldError("recurrence")}
              />
              <TextField
                id={`${props.id}-until`}
                label="Until"
                type="datetime-local"
                hint={`Optional: no occurrence starts after it. ${hint}`}
                value={until}
                onInput={setUntil}
              />
              <TextField
                id={`${props.id}-count`}
                label="Number of occurrences"
                type="number"
                inputMode="numeric"
                hint="Optional: 1 to 1000, this one included."
                value={count}
                onInput={setCount}
              />
            </>
          )}
        </>
      )}
    </ResourceForm>
  )
}

const WindowCard = (props: {
  readonly window: WindowJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { window } = props
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const changeable = window.status === "scheduled" || window.status === "in_progress"

  const cancel = (series: boolean) =>
    act(
      (api) => api.maintenance.cancel({ params: { id: window.id }, query: series ? { series: true } : {} }),
      () =>
        series
          ? `${window.title} and its later occurrences were cancelled.`
          : window.recurrence === null
          ? `${window.title} was cancelled.`
          : `This occurrence of ${window.title} was cancelled.`
    )

  return (
    <ResourceCard
      id={`window-${window.id}`}
      title={window.title}
      status={{ text: maintenanceStatusLabel[window.status], ...(changeable ? {} : { tone: "ok" }) }}
      badges={<VisibilityBadge isPublic={window.isPublic} />}
      failure={failure}
      actions={(changeable && (can("maintenance.update") || can("maintenance.cancel"))) && (
        <>
          {can("maintenance.update") && (
            <OpenButton open={editor.open} onToggle={editor.toggle} label="Edit" hidden={window.title} />
          )}
          {can("maintenance.cancel") && (window.recurrence === null
            ? (
              <ConfirmButton
                label="Cancel window"
                name={`Cancel window ${window.title}`}
                confirmLabel={`Cancel ${window.title}`}
                onConfirm={() => cancel(false)}
              />
            )
            : (
              <>
                <ConfirmButton
                  label="Cancel this occurrence"
                  name={`Cancel this occurrence of ${window.title}`}
                  confirmLabel={`Cancel only this occurrence of ${window.title}`}
                  onConfirm={() => cancel(false)}
                />
                <ConfirmButton
                  label="Cancel this and all later"
                  name={`Cancel this and all later occurrences of ${window.title}`}
                  confirmLabel={`Cancel ${window.title} from this occurrence on`}
                  onConfirm={() => cancel(true)}
                />
              </>
            ))}
        </>
      )}
      opened={editor.open && (
        <InlineSection id={`edit-${window.id}`} title={`Edit ${window.title}`}>
          <FreshEditor
            read={(api) => api.maintenance.get({ params: { id: window.id }, responseMode: "decoded-and-response" })}
          >
            {(fresh, etag) => (
              <WindowForm
                id={`edit-${window.id}`}
                initial={fresh}
                etag={etag}
                components={props.components}
                submitLabel="Save"
                onCancel={editor.close}
                onSaved={(saved) => editor.done(`${saved.title} was saved.`)}
              />
            )}
          </FreshEditor>
        </InlineSection>
      )}
    >
      <p class="small muted">
        <When at={window.scheduledStart} /> to <When at={window.scheduledEnd} /> ·{" "}
        {componentNames(props.components, window.componentIds)}
      </p>
      {window.recurrence !== null && (
        <p class="small">
          Repeats {repeatsEvery(window.recurrence)}
          {window.recurrence.until !== undefined && (
            <>
              {" "}until <When at={window.recurrence.until} />
            </>
          )}
        </p>
      )}
      {window.description && <p class="small">{window.description}</p>}
    </ResourceCard>
  )
}

const liveKinds = ["maintenance", "components"] as const

const MaintenanceView = () => {
  // Latest start first.
  const { loaded, message, changed, refresh } = useListScreen((api) =>
    Effect.map(
      everyItem(api.maintenance.list),
      (windows) => windows.toSorted((a, b) => b.scheduledStart.epochMilliseconds - a.scheduledStart.epochMilliseconds)
    )
  )
  // Changes made elsewhere (another operator, a monitor, the maintenance clock) show as they happen.
  useLiveRefresh(liveKinds, refresh)
  const componentList = useComponentChoices()
  const can = useCan()

  return (
    <ResourcePage title="Maintenance" message={message}>
      <ResourceCards
        loaded={loaded}
        label="Maintenance windows"
        empty={can("maintenance.create")
          ? "No maintenance scheduled. Plan a window below: readers and subscribers are told ahead of time."
          : "No maintenance scheduled."}
      >
        {(window) => <WindowCard key={window.id} window={window} components={componentList} onChanged={changed} />}
      </ResourceCards>
      {can("maintenance.create") && (
        <NewSection id="new-window" title="Schedule maintenance">
          <WindowForm
            id="new-window"
            components={componentList}
            submitLabel="Schedule"
            onSaved={(created) => changed(`${created.title} was scheduled.`)}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const MaintenanceScreen: Screen = {
  path: "maintenance",
  group: "now",
  needs: "maintenance.list",
  title: "Maintenance",
  View: MaintenanceView
}
