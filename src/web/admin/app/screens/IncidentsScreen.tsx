/**
 * Incidents: opening one against components, posting updates to its timeline, resolving it,
 * reading the timeline and writing the postmortem of a resolved one. Open incidents come first.
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
import { type TemplateJson, TemplatePicker } from "../ui/TemplatePicker.js"
import { PostmortemEditor } from "./PostmortemEditor.js"
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
  const [templateId, setTemplateId] = useState<TemplateJson["id"] | "">("")
  const { failure, busy, submit, fieldError } = useSubmit()

  /** A template fills every field; the operator may still change them before opening. */
  const pickTemplate = (template: TemplateJson | undefined) => {
    setTemplateId(template?.id ?? "")
    if (template === undefined) return
    setTitle(template.title)
    setStatus(template.status)
    setSeverity(template.severity)
    setMessage(template.message)
    setComponentIds(template.componentIds)
  }

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    // The template has filled in the form already: the form sends every field, not the template's
    // id, so a template deleted meanwhile does not refuse the incident.
    const payload = { title: title.trim(), status, severity, message: message.trim(), componentIds }
    const outcome = await submit((api) => api.incidents.create({ payload }))
    if (outcome.ok) {
      setTitle("")
      setMessage("")
      setComponentIds([])
      setTemplateId("")
      props.onCreated(outcome.value)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby="new-incident-title">
      <FailureMessage failure={failure} />
      <TemplatePicker id="incident-template" value={templateId} onPick={pickTemplate} />
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
  const [editingPostmortem, setEditingPostmortem] = useState(false)
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
        {editingPostmortem && (
          <PostmortemEditor
            incident={incident}
            onCancel={() => setEditingPostmortem(false)}
            onSaved={(saved) => {
              setEditingPostmortem(false)
              const outcome = saved.postmortem?.published ? "published" : "saved as a draft"
              props.onChanged(`The postmortem of ${saved.title} was ${outcome}.`)
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
        {!open && (
          <button
            type="button"
            aria-expanded={editingPostmortem}
            onClick={() => setEditingPostmortem(!editingPostmortem)}
          >
            {incident.postmortem ? "Edit postmortem" : "Write postmortem"}
            <span class="visually-hidden">of {incident.title}</span>
          </button>
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
