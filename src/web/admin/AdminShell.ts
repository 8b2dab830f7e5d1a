/** The HTML page every dashboard screen starts from; the script renders the rest. */
import type { AdminBundle } from "./AdminBundle.js"

export const adminShell = (bundle: AdminBundle): string =>
  `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="same-origin">
  <meta name="color-scheme" content="light dark">
  <title>Status admin</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/admin/app.css?v=${bundle.stylesheet.hash}">
  <script type="module" src="/admin/app.js?v=${bundle.script.hash}"></script>
</head>
<body>
  <div id="app"><main class="loading"><p>Loading the dashboard…</p></main></div>
  <noscript><p>The admin dashboard needs JavaScript.</p></noscript>
</body>
</html>
`
