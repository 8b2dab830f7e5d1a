/**
 * Webhooks: creating one (the signing secret is shown once), a test send with its result,
 * switching a webhook on and off, its recent deliveries, and deleting it.
 */
import { useState } from "preact/hooks"

import type { Component } from "../../../../domain/Component.js"
import type { CreatedWebhook, DeliveryResult, Webhook, WebhookType } from "../../../../domain/Webhook.js"
import { optionsOf, webhookTypeLabel } from "../../../Labels.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table, When } from "../ui/feedback.js"
import { Checkbox, Fieldset, SelectField, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

const webhookTypes = optionsOf(webhookTypeLabel)

type WebhookJson = typeof Webhook.json.Type
type ComponentJson = typeof Component.json.Type

const describeResult = (result: DeliveryResult) =>
  result.success
    ? `Delivered: HTTP ${result.statusCode} in ${result.durationMs} ms.`
    : `Failed${result.statusCode === null ? "" : `: HTTP ${result.statusCode}`}${
      result.error ? ` (${result.error})` : ""
    } after ${result.durationMs} ms.`

const Deliveries = ({ webhook }: { readonly webhook: WebhookJson }) => {
  const [loaded] = useLoad((api) => api.webhooks.deliveries({ params: { id: webhook.id } }))
  return (
    <Loading loaded={loaded}>
      {(attempts) =>
        attempts.length === 0 ? <p>No deliveries yet.</p> : (
          <Table caption={`Recent deliveries of ${webhook.name}`}>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Result</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((attempt) => (
                <tr key={attempt.id}>
                  <td>
                    <When at={attempt.attemptedAt} />
                  </td>
                  <td>{attempt.event}{attempt.test && <span class="badge">test</span>}</td>
                  <td>{attempt.attempt}</td>
                  <td class={attempt.success ? "result-ok" : "result-bad"}>
                    {attempt.success ? "Delivered" : "Failed"}
                    {attempt.statusCode !== null && ` (HTTP ${attempt.statusCode})`}
                    {attempt.error && <span class="small">{attempt.error}</span>}
                  </td>
                  <td>{attempt.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
    </Loading>
  )
}

const WebhookRow = (props: {
  readonly webhook: WebhookJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { webhook } = props
  const [testResult, setTestResult] = useState<DeliveryResult | null>(null)
  const [testing, setTesting] = useState(false)
  const [showDeliveries, setShowDeliveries] = useState(false)
  const [deliveriesVersion, setDeliveriesVersion] = useState(0)
  const [failure, setFailure] = useState<Failure | null>(null)

  const test = async () => {
    setTesting(true)
    setTestResult(null)
    const outcome = await call((api) => api.webhooks.test({ params: { id: webhook.id } }))
    setTesting(false)
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) {
      setTestResult(outcome.value)
      setDeliveriesVersion((version) => version + 1)
    }
  }
  const toggle = async () => {
    const outcome = await call((api) => api.webhooks.toggle({ params: { id: webhook.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`${webhook.name} is now ${outcome.value.isActive ? "active" : "paused"}.`)
  }
  const remove = async () => {
    const outcome = await call((api) => api.webhooks.remove({ params: { id: webhook.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`${webhook.name} was deleted.`)
  }

  return (
    <tr>
      <th scope="row">
        {webhook.name}
        {!webhook.isActive && <span class="badge">paused</span>}
        <p class="small muted">
          {webhookTypeLabel[webhook.type]} · <code>{webhook.url}</code> · {webhook.componentIds === null
            ? "all components"
            : webhook.componentIds.map((id) => props.components.find((component) => component.id === id)?.name ?? id)
              .join(", ")}
        </p>
        {webhook.consecutiveFailures > 0 && (
          <p class="small result-bad">
            {webhook.consecutiveFailures} failed deliveries in a row{webhook.lastError && `: ${webhook.lastError}`}
          </p>
        )}
        <p class="small" role="status">
          {testResult && (
            <span class={testResult.success ? "result-ok" : "result-bad"}>Test: {describeResult(testResult)}</span>
          )}
        </p>
        <FailureMessage failure={failure} />
        {showDeliveries && (
          <section aria-label={`Deliveries of ${webhook.name}`}>
            <Deliveries key={deliveriesVersion} webhook={webhook} />
          </section>
        )}
      </th>
      <td>
        {/* A toggle keeps its name; aria-pressed (and its look) carries the state. */}
        <button type="button" class="toggle" aria-pressed={webhook.isActive} onClick={toggle}>
          Active<span class="visually-hidden">{webhook.name}</span>
        </button>
      </td>
      <td class="row-actions">
        <button type="button" onClick={test} disabled={testing}>
          {testing ? "Testing…" : "Test"}
          <span class="visually-hidden">{webhook.name}</span>
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          Deliveries<span class="visually-hidden">of {webhook.name}</span>
        </button>
        <ConfirmButton label="Delete" confirmLabel={`Delete ${webhook.name}`} onConfirm={remove} />
      </td>
    </tr>
  )
}

const NewWebhook = (props: {
  readonly components: ReadonlyArray<ComponentJson>
  readonly onCreated: (webhook: typeof CreatedWebhook.Type) => void
}) => {
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [type, setType] = useState<WebhookType>("generic")
  const [notifyOnIncident, setIncident] = useState(true)
  const [notifyOnMaintenance, setMaintenance] = useState(true)
  const [notifyOnComponentChange, setComponentChange] = useState(true)
  const [componentIds, setComponentIds] = useState<ReadonlyArray<string>>([])
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const payload = {
      name: name.trim(),
      url: url.trim(),
      type,
      notifyOnIncident,
      notifyOnMaintenance,
      notifyOnComponentChange,
      componentIds: componentIds.length === 0 ? null : componentIds
    }
    const outcome = await submit((api) => api.webhooks.create({ payload }))
    if (outcome.ok) {
      setName("")
      setUrl("")
      setComponentIds([])
      props.onCreated(outcome.value)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby="new-webhook-title">
      <FailureMessage failure={failure} />
      <TextField id="webhook-name" label="Name" required value={name} onInput={setName} error={fieldError("name")} />
      <TextField
        id="webhook-url"
        label="URL"
        type="url"
        inputMode="url"
        required
        value={url}
        onInput={setUrl}
        error={fieldError("url")}
      />
      <SelectField
        id="webhook-type"
        label="Format"
        value={type}
        options={webhookTypes}
        onChange={setType}
        error={fieldError("type")}
      />
      <Fieldset legend="Notify on">
        <Checkbox id="webhook-incident" label="Incidents" checked={notifyOnIncident} onChange={setIncident} />
        <Checkbox
          id="webhook-maintenance"
          label="Maintenance"
          checked={notifyOnMaintenance}
          onChange={setMaintenance}
        />
        <Checkbox
          id="webhook-component"
          label="Component status changes"
          checked={notifyOnComponentChange}
          onChange={setComponentChange}
        />
      </Fieldset>
      {props.components.length > 0 && (
        <Fieldset legend="Only about these components">
          <p class="hint">Leave all unchecked to hear about every component.</p>
          {props.components.map((component) => (
            <Checkbox
              key={component.id}
              id={`webhook-about-${component.id}`}
              label={component.name}
              checked={componentIds.includes(component.id)}
              onChange={(checked) =>
                setComponentIds(
                  checked ? [...componentIds, component.id] : componentIds.filter((id) => id !== component.id)
                )}
            />
          ))}
          {fieldError("componentIds") && <p class="field-error">{fieldError("componentIds")}</p>}
        </Fieldset>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>Create webhook</button>
      </div>
    </form>
  )
}

const WebhooksView = () => {
  const { loaded, message, changed } = useListScreen((api) => api.webhooks.list())
  const componentList = useComponentChoices()
  const [created, setCreated] = useState<typeof CreatedWebhook.Type | null>(null)

  return (
    <>
      <h1>Webhooks</h1>
      <StatusMessage text={message} />
      <Loading loaded={loaded}>
        {(webhooks) =>
          webhooks.length === 0 ? <p>No webhooks yet.</p> : (
            <Table caption="Webhooks">
              <thead>
                <tr>
                  <th scope="col">Webhook</th>
                  <th scope="col">Active</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.map((webhook) => (
                  <WebhookRow key={webhook.id} webhook={webhook} components={componentList} onChanged={changed} />
                ))}
              </tbody>
            </Table>
          )}
      </Loading>
      {created?.secret && (
        <div class="reveal" role="region" aria-labelledby="webhook-secret-title">
          <h2 id="webhook-secret-title">Signing secret of {created.name}</h2>
          <p>
            Copy it now: it is shown only this once. Receivers verify <code>X-Service-Signature</code> with it.
          </p>
          <output class="secret" aria-label="Signing secret">{created.secret}</output>
        </div>
      )}
      <section aria-labelledby="new-webhook-title">
        <h2 id="new-webhook-title">New webhook</h2>
        <NewWebhook
          components={componentList}
          onCreated={(webhook) => {
            setCreated(webhook)
            changed(`${webhook.name} was created.`)
          }}
        />
      </section>
    </>
  )
}

export const WebhooksScreen: Screen = { path: "webhooks", title: "Webhooks", View: WebhooksView }
