/**
 * Incident templates: prepared title, message, severity, status and components that the
 * incidents screen's "Template" menu fills its form from. Listing, creating, editing, deleting.
 */
import { useState } from "preact/hooks"

import type { IncidentSeverity, IncidentStatus } from "../../../../domain/Incident.js"
import type { IncidentTemplate } from "../../../../domain/IncidentTemplate.js"
import { openIncidentStatuses, optionsOf, severityLabel } from "../../../Labels.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { type ComponentId, componentNames, ComponentPicker } from "../ui/ComponentPicker.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table, VisibilityBadge } from "../ui/feedback.js"
import { SelectField, TextArea, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

const incidentSeverities = optionsOf(severityLabel)

type TemplateJson = typeof IncidentTemplate.json.Type
type ComponentJson = ReturnType<typeof useComponentChoices>[number]
type OpenStatus = Exclude<IncidentStatus, "resolved">

const TemplateForm = (props: {
  readonly id: string
  readonly initial?: TemplateJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly submitLabel: string
  readonly onSaved: (template: TemplateJson) => void
  readonly onCancel?: () => void
}) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [title, setTitle] = useState(props.initial?.title ?? "")
  const [status, setStatus] = useState<OpenStatus>(props.initial?.status ?? "investigating")
  const [severity, setSeverity] = useState<IncidentSeverity>(props.initial?.severity ?? "minor")
  const [message, setMessage] = useState(props.initial?.message ?? "")
  const [componentIds, setComponentIds] = useState<ReadonlyArray<ComponentId>>(props.initial?.componentIds ?? [])
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const payload = { name: name.trim(), title: title.trim(), status, severity, message: message.trim(), componentIds }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial
        ? api.incidentTemplates.update({ params: { id: initial.id }, payload })
        : api.incidentTemplates.create({ payload })
    )
    if (outcome.ok) {
      if (!initial) {
        setName("")
        setTitle("")
        setMessage("")
        setComponentIds([])
      }
      props.onSaved(outcome.value)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby={`${props.id}-title`}>
      <FailureMessage failure={failure} />
      <TextField
        id={`${props.id}-name`}
        label="Template name"
        hint="What the incidents screen offers; unique."
        required
        value={name}
        onInput={setName}
        error={fieldError("name")}
      />
      <TextField
        id={`${props.id}-incident-title`}
        label="Incident title"
        required
        value={title}
        onInput={setTitle}
        error={fieldError("title")}
      />
      <SelectField
        id={`${props.id}-status`}
        label="Status"
        value={status}
        options={openIncidentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      <SelectField
        id={`${props.id}-severity`}
        label="Severity"
        value={severity}
        options={incidentSeverities}
        onChange={setSeverity}
        error={fieldError("severity")}
      />
      <TextArea
        id={`${props.id}-message`}
        label="Message"
        value={message}
        onInput={setMessage}
        error={fieldError("message")}
      />
      <ComponentPicker
        id={`${props.id}-affects`}
        legend="Affected components"
        components={props.components}
        selected={componentIds}
        onChange={setComponentIds}
        error={fieldError("componentIds")}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  )
}

const TemplateRow = (props: {
  readonly template: TemplateJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { template } = props
  const [editing, setEditing] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)

  const remove = async () => {
    const outcome = await call((api) => api.incidentTemplates.remove({ params: { id: template.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`The template ${template.name} was deleted.`)
  }

  return (
    <tr>
      <th scope="row">
        {template.name}
        <span class="badge">{severityLabel[template.severity]}</span>
        <VisibilityBadge isPublic={template.isPublic} />
        <p class="small">{template.title}</p>
        <p class="small muted">Affects {componentNames(props.components, template.componentIds)}</p>
        <FailureMessage failure={failure} />
        {editing && (
          <section class="inline-form" aria-labelledby={`edit-template-${template.id}-title`}>
            <h3 id={`edit-template-${template.id}-title`}>Edit {template.name}</h3>
            <TemplateForm
              id={`edit-template-${template.id}`}
              initial={template}
              components={props.components}
              submitLabel="Save"
              onCancel={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false)
                props.onChanged(`The template ${saved.name} was saved.`)
              }}
            />
          </section>
        )}
      </th>
      <td class="row-actions">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit<span class="visually-hidden">{template.name}</span>
        </button>
        <ConfirmButton label="Delete" confirmLabel={`Delete ${template.name}`} onConfirm={remove} />
      </td>
    </tr>
  )
}

const IncidentTemplatesView = () => {
  const { loaded, message, changed } = useListScreen((api) => api.incidentTemplates.list())
  const componentList = useComponentChoices()

  return (
    <>
      <h1>Incident templates</h1>
      <StatusMessage text={message} />
      <Loading loaded={loaded}>
        {(templates) =>
          templates.length === 0 ? <p>No templates yet. Create one below.</p> : (
            <Table caption="Incident templates">
              <thead>
                <tr>
                  <th scope="col">Template</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {templates.map((template) => (
                  <TemplateRow key={template.id} template={template} components={componentList} onChanged={changed} />
                ))}
              </tbody>
            </Table>
          )}
      </Loading>
      <section aria-labelledby="new-template-title">
        <h2 id="new-template-title">New template</h2>
        <TemplateForm
          id="new-template"
          components={componentList}
          submitLabel="Create template"
          onSaved={(created) => changed(`The template ${created.name} was created.`)}
        />
      </section>
    </>
  )
}

export const IncidentTemplatesScreen: Screen = {
  path: "incident-templates",
  title: "Incident templates",
  View: IncidentTemplatesView
}
