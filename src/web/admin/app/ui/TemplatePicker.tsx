/** The incident form's "Template" menu: choosing one fills the form, which stays editable. */
import { everyItem } from "../../../../client/Pages.js"
import type { IncidentTemplate } from "../../../../domain/IncidentTemplate.js"
import { SelectField } from "./fields.js"
import { useLoad } from "./requests.js"

export type TemplateJson = typeof IncidentTemplate.json.Type

export const TemplatePicker = (props: {
  readonly id: string
  readonly value: string
  readonly onPick: (template: TemplateJson | undefined) => void
}) => {
  const [loaded] = useLoad((api) => everyItem(api.incidentTemplates.list))
  const templates = loaded.state === "ready" ? loaded.value : []
  if (templates.length === 0) return null
  return (
    <SelectField
      id={props.id}
      label="Template"
      hint="Fills the fields below; you can still change them. Templates are kept under Incident templates."
      value={props.value}
      options={[{ value: "", label: "None" }, ...templates.map((t) => ({ value: t.id, label: t.name }))]}
      onChange={(id) => props.onPick(templates.find((t) => t.id === id))}
    />
  )
}
