/**
 * Incidents: opening one against components, posting updates to its timeline, resolving it,
 * and reading the timeline. Open incidents come first.
 */
import { useState } from "preact/hooks"

import type { Component } from "../../../../domain/Component.js"
import type { Incident, IncidentSeverity, IncidentStatus } from "../../../../domain/Incident.js"
import { incidentStatusLabel, openIncidentStatuses, optionsOf, severityLabel } from "../../../Labels.js"
import { call } from "../api.js"
import type { Failure } from "../failure.js"
import { type ComponentId, componentNames, ComponentPicker } from "../ui/ComponentPicker.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table, When } from "../ui/feedback.js"
import { SelectField, TextArea, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

const incidentStatuses = optionsOf(incidentStatusLabel)
const incidentSeverities = optionsOf(severityLabel)

type IncidentJson = typeof Incident.json.Type
type ComponentJson = typeof Component.json.Type
type OpenStatus = Exclude<IncidentStatus, "resolved">

const NewIncident = (
  props: { readonly components: ReadonlyArray<ComponentJson>; readonly onCreated: (incident: IncidentJson) => void }
) => {
  const [title, setTitle] = useState("")
  const [status, setStatus] = useState<OpenStatus>("investigating")
  const [severity, setSeverity] = useState<IncidentSeverity>("minor")
  const [message, setMessage] = useState("")
  const [componentIds, setComponentIds] = useState<ReadonlyArray<ComponentId>>([])
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const payload = { title: title.trim(), status, severity, message: message.trim(), componentIds }
    const outcome = await submit((api) => api.incidents.create({ payload }))
    if (outcome.ok) {
      setTitle("")
      setMessage("")
      setComponentIds([])
      props.onCreated(outcome.value)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby="new-incident-title">
      <FailureMessage failure={failure} />
      <TextField
        id="incident-title"
        label="Title"
        required
        value={title}
        onInput={setTitle}
        error={fieldError("title")}
      />
      <SelectField
        id="incident-status"
        label="Status"
        value={status}
        options={openIncidentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      <SelectField
        id="incident-severity"
        label="Severity"
        value={severity}
        options={incidentSeverities}
        onChange={setSeverity}
        error={fieldError("severity")}
      />
      <TextArea
        id="incident-message"
        label="Message"
        hint="What people see first on the status page and in the notification."
        value={message}
        onInput={setMessage}
        error={fieldError("message")}
      />
      <ComponentPicker
        id="incident-affects"
        legend="Affected components"
        components={props.components}
        selected={componentIds}
        onChange={setComponentIds}
        error={fieldError("componentIds")}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>Open incident</button>
      </div>
    </form>
  )
}

const PostUpdate = (
  props: {
    readonly incident: IncidentJson
    readonly onPosted: (incident: IncidentJson) => void
    readonly onCancel: () => void
  }
) => {
  const { incident } = props
  const [status, setStatus] = useState<IncidentStatus>(incident.status)
  const [message, setMessage] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()
  const id = `update-${incident.id}`

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const outcome = await submit((api) =>
      api.incidents.addUpdate({ path: { id: incident.id }, payload: { status, message: message.trim() } })
    )
    if (outcome.ok) props.onPosted(outcome.value)
  }

  return (
    <section class="inline-form" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Update on {incident.title}</h3>
      <form onSubmit={onSubmit} noValidate aria-labelledby={`${id}-title`}>
        <FailureMessage failure={failure} />
        <SelectField
          id={`${id}-status`}
          label="Status"
          hint="Choosing Resolved resolves the incident."
          value={status}
          options={incidentStatuses}
          onChange={setStatus}
          error={fieldError("status")}
        />
        <TextArea
          id={`${id}-message`}
          label="Message"
          value={message}
          onInput={setMessage}
          error={fieldError("message")}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>Post update</button>
          <button type="button" onClick={props.onCancel}>Cancel</button>
        </div>
      </form>
    </section>
  )
}

/** The timeline, oldest first, as the public page shows it. */
const Timeline = ({ incident }: { readonly incident: IncidentJson }) => (
  <ol class="timeline" aria-label={`Timeline of ${incident.title}`}>
    {incident.updates.map((update) => (
      <li key={update.id}>
        <strong>{incidentStatusLabel[update.status]}</strong> · <When at={update.createdAt} />
        <p class="small">{update.message}</p>
      </li>
    ))}
  </ol>
)

const IncidentRow = (props: {
  readonly incident: IncidentJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { incident } = props
  const [posting, setPosting] = useState(false)
  const [showTimeline, setShowTimeline] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const open = incident.status !== "resolved"

  const resolve = async () => {
    const outcome = await call((api) => api.incidents.resolve({ path: { id: incident.id }, payload: null }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`${incident.title} was resolved.`)
  }

  return (
    <tr>
      <th scope="row">
        {incident.title}
        <span class="badge">{severityLabel[incident.severity]}</span>
        <p class="small muted">
          Affects {componentNames(props.components, incident.componentIds)} · opened <When at={incident.createdAt} />
          {incident.resolvedAt && (
            <>
              {" · resolved "}
              <When at={incident.resolvedAt} />
            </>
          )}
        </p>
        <p class="small">{incident.message}</p>
        <FailureMessage failure={failure} />
        {showTimeline && <Timeline incident={incident} />}
        {posting && (
          <PostUpdate
            incident={incident}
            onCancel={() => setPosting(false)}
            onPosted={(updated) => {
              setPosting(false)
              props.onChanged(`The update on ${updated.title} was posted.`)
            }}
          />
        )}
      </th>
      <td>
        <span class={open ? "badge bad" : "badge ok"}>{incidentStatusLabel[incident.status]}</span>
      </td>
      <td class="row-actions">
        <button type="button" aria-expanded={showTimeline} onClick={() => setShowTimeline(!showTimeline)}>
          Timeline<span class="visually-hidden">of {incident.title}</span>
        </button>
        {open && (
          <>
            <button type="button" aria-expanded={posting} onClick={() => setPosting(!posting)}>
              Post update<span class="visually-hidden">on {incident.title}</span>
            </button>
            <ConfirmButton label="Resolve" confirmLabel={`Resolve ${incident.title}`} onConfirm={resolve} />
          </>
        )}
      </td>
    </tr>
  )
}

const IncidentsView = () => {
  const { loaded, message, changed } = useListScreen((api) => api.incidents.list())
  const componentList = useComponentChoices()

  return (
    <>
      <h1>Incidents</h1>
      <StatusMessage text={message} />
      <Loading loaded={loaded}>
        {(incidents) =>
          incidents.length === 0 ? <p>No incidents yet.</p> : (
            <Table caption="Incidents">
              <thead>
                <tr>
                  <th scope="col">Incident</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {incidents
                  .toSorted((a, b) => Number(a.status === "resolved") - Number(b.status === "resolved"))
                  .map((incident) => (
                    <IncidentRow key={incident.id} incident={incident} components={componentList} onChanged={changed} />
                  ))}
              </tbody>
            </Table>
          )}
      </Loading>
      <section aria-labelledby="new-incident-title">
        <h2 id="new-incident-title">New incident</h2>
        <NewIncident components={componentList} onCreated={(incident) => changed(`${incident.title} was opened.`)} />
      </section>
    </>
  )
}

export const IncidentsScreen: Screen = { path: "incidents", title: "Incidents", View: IncidentsView }
