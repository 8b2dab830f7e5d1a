/**
 * The postmortem of a resolved incident: its Markdown and whether the public sees it. Saving
 * writes the whole postmortem; a draft stays in the dashboard and the admin API. Given the
 * incident read afresh (FreshEditor), saving over someone else's edit made meanwhile is refused.
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import type { Incident } from "../../../../domain/Incident.js"
import { Checkbox, TextArea } from "../ui/fields.js"
import { useSubmit } from "../ui/requests.js"
import { InlineSection, ResourceForm } from "../ui/resources.js"

type IncidentJson = typeof Incident.json.Type

export const PostmortemEditor = (
  props: {
    readonly incident: IncidentJson
    /** The ETag the incident was read with, sent as `If-Match`. */
    readonly etag: string | undefined
    readonly onSaved: (incident: IncidentJson) => void
    readonly onCancel: () => void
  }
) => {
  const { incident } = props
  const [body, setBody] = useState(incident.postmortem?.body ?? "")
  const [published, setPublished] = useState(incident.postmortem?.published ?? false)
  const { failure, busy, submit, fieldError } = useSubmit()
  const id = `postmortem-${incident.id}`

  const save = async () => {
    const outcome = await submit((api) =>
      api.incidents.setPostmortem({ params: { id: incident.id }, payload: { body, published } }).pipe(
        withIfMatch(props.etag)
      )
    )
    if (outcome.ok) props.onSaved(outcome.value)
  }

  return (
    <InlineSection id={id} title={`Postmortem of ${incident.title}`}>
      <ResourceForm
        id={id}
        failure={failure}
        busy={busy}
        submitLabel="Save postmortem"
        onSubmit={save}
        onCancel={props.onCancel}
      >
        <TextArea
          id={`${id}-body`}
          label="Postmortem (Markdown)"
          hint="Paragraphs, # headings, lists, *emphasis*, **strong**, `code`, fenced code and [links](https://…)."
          value={body}
          onInput={setBody}
          error={fieldError("body")}
        />
        <Checkbox
          id={`${id}-published`}
          label="Published on the status page"
          hint="Publishing notifies subscribers and webhooks (again after an unpublish); edits do not. Unticked, it is a draft only you see."
          checked={published}
          onChange={setPublished}
          error={fieldError("published")}
        />
      </ResourceForm>
    </InlineSection>
  )
}
