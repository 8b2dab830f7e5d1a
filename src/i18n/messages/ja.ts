/** The Japanese catalogue (src/i18n/messages/en.ts defines the keys). Japanese has one plural form. */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("ja")

export const ja: Messages = {
  languageName: "日本語",
  listSeparator: "、",

  status: {
    component: {
      operational: "正常稼働",
      degraded: "パフォーマンス低下",
      partial_outage: "部分的な障害",
      major_outage: "重大な障害",
      maintenance: "メンテナンス中"
    },
    overall: {
      operational: "すべてのシステムが正常に稼働しています",
      degraded: "パフォーマンスが低下しています",
      partial_outage: "一部で障害が発生しています",
      major_outage: "重大な障害が発生しています",
      maintenance: "メンテナンスを実施中です"
    },
    incident: {
      investigating: "調査中",
      identified: "原因特定",
      monitoring: "経過観察中",
      resolved: "解決済み"
    },
    maintenance: {
      scheduled: "予定",
      in_progress: "実施中",
      completed: "完了",
      cancelled: "中止"
    },
    severity: {
      none: "影響なし",
      minor: "軽微な影響",
      major: "重大な影響",
      critical: "深刻な影響"
    }
  },

  layout: {
    statusTitle: (name) => `${name} ステータス`,
    pageTitle: (title, name) => `${title} · ${name} ステータス`,
    rssTitle: (name) => `${name} ステータス（RSS）`,
    atomTitle: (name) => `${name} ステータス（Atom）`,
    skip: "本文へ移動",
    brandSuffix: " ステータス",
    followUpdates: "更新情報：",
    rss: "RSS",
    atom: "Atom",
    history: "インシデント履歴",
    jsonApi: "JSON API",
    languages: "言語",
    links: "リンク"
  },

  page: {
    backToStatus: "現在のステータスに戻る",
    activeIncidents: "発生中のインシデント",
    maintenance: "メンテナンス",
    components: "コンポーネント",
    noComponents: "コンポーネントはまだ登録されていません。",
    recentHistory: "最近の履歴",
    noRecentIncidents: "最近報告されたインシデントはありません。",
    allPastIncidents: "過去のインシデントをすべて表示",
    updated: (time) => `${time} 更新`,
    posted: (time) => `${time} 投稿`,
    window: (from, to) => `${from} ～ ${to}`,
    componentCount: (n) => plural(n, { other: `${n} 個のコンポーネント` }),
    ofGroup: (group) => `（${group}）`,
    affects: (names) => `影響範囲：${names}`,
    opened: (time) => `${time} 発生`,
    resolved: (time) => `${time} 解決`,
    updates: "更新履歴",
    postmortem: "事後報告",
    published: (time) => `${time} 公開`,
    plannedMaintenance: "計画メンテナンス",
    fromTo: (from, to) => `${from} ～ ${to}`,
    details: "詳細",
    historyTitle: "インシデント履歴",
    noIncidents: "報告されたインシデントはありません。",
    historyPages: "履歴のページ",
    newer: "新しいインシデント",
    older: "古いインシデント",
    pageOf: (page, pages) => `${page} / ${pages} ページ`
  },

  subscribe: {
    title: "メールで更新を受け取る",
    email: "メールアドレス",
    components: "コンポーネント",
    tickNone: "何も選ばなければ、すべてのコンポーネントの更新を受け取ります。",
    allOf: (group) => `${group} のすべて`,
    submit: "登録する",
    feeds: (rss, atom) => `最初に確認用のリンクをお送りします。${rss} または ${atom} フィードでも購読できます。`
  },

  preferences: {
    title: "登録内容",
    sentTo: (email) => `インシデントとメンテナンスの更新は ${email} に送信されます。`,
    noneListed:
      "選択したコンポーネントはどれも掲載されなくなりました。現在は、コンポーネントを指定しない更新だけを受け取ります。いくつか選び直すか、何も選ばずに保存してすべての更新を受け取ってください。",
    noComponents: "コンポーネントは掲載されていません。すべての更新を受け取ります。",
    choose: "受け取る更新を選ぶ",
    unnamedReachAll: "コンポーネントを指定しない更新は、すべての登録者に届きます。",
    save: "選択を保存",
    stop: "すべての更新を停止",
    unsubscribe: (email) => `${email} の登録を解除`
  },

  forms: {
    notFound: "見つかりません",
    unavailable: "ステータスページは起動中か、データベースに接続できません。しばらくしてからもう一度お試しください。",
    notSentTitle: "送信されませんでした",
    notSent: "このフォームは、このステータスページからのみ送信できます。",
    invalidEmail: "メールアドレスを入力してください（例：name@example.com）。",
    componentsRefused: "一覧にあるコンポーネントから選んでください。選択したものの一つは提供されなくなりました。",
    tooManyComponents: (max) =>
      `選べるコンポーネントは ${max} 個までです。すべての更新を受け取るには何も選ばないでください。`,
    tooManyRequests: "登録のリクエストが多すぎます。しばらくしてからもう一度お試しください。",
    subscribeAccepted: "ありがとうございます。このアドレスがまだ登録されていなければ、確認用のリンクをお送りしました。",
    linkNotValidTitle: "無効なリンク",
    confirmationNotValid:
      "この確認用リンクは不明か、使用済みか、期限切れです。新しいリンクを受け取るには、もう一度登録してください。",
    confirmTitle: "登録の確認",
    confirm: "確認すると、インシデントとメンテナンスの更新をメールで受け取れます。",
    confirmButton: "登録を確認する",
    confirmedTitle: "登録が完了しました",
    confirmed: (email) => `${email} にインシデントとメンテナンスの更新をお送りします。`,
    linkNotValid:
      "このリンクに該当する登録はありません。すでに解除されている可能性があります。最新のメールのリンクをお使いください。",
    linkIncomplete: "このリンクは不完全です。最新のメールのリンクをお使いください。",
    savedEvery: "保存しました。すべてのコンポーネントの更新を受け取ります。",
    savedSome: (names) => `保存しました。${names} と、コンポーネントを指定しない更新を受け取ります。`,
    unsubscribedTitle: "登録を解除しました",
    unsubscribed: (email) => `${email} には今後、更新をお送りしません。`,
    unsubscribeTitle: "登録の解除",
    unsubscribeAsk: (email) => `${email} へのステータス更新の送信を停止しますか？`,
    unsubscribeButton: (email) => `${email} の登録を解除`,
    unsubscribeLinkIncomplete: "この登録解除リンクは不完全です。最新のメールのリンクをお使いください。",
    notUnsubscribedTitle: "登録を解除できませんでした",
    notUnsubscribed: "このリンクに該当する登録はありません。すでに解除されている可能性があります。"
  },

  access: {
    title: "パスワードが必要です",
    intro: "このステータスページは非公開です。閲覧するには、お知らせしたパスワードを入力してください。",
    password: "パスワード",
    submit: "ステータスページを開く",
    wrongPassword: "パスワードが正しくありません。確認してもう一度お試しください。",
    tooManyTries: "試行回数が多すぎます。数分待ってからもう一度お試しください。"
  },

  uptime: {
    barLabel: (name) => `${name} の日ごとの稼働率（古い順）`,
    groupBarLabel: (name) => `${name} の日ごとの稼働率（各日でコンポーネントの最低値、古い順）`,
    beforeComponent: "このコンポーネントの作成前",
    beforeComponents: "コンポーネントの作成前",
    noData: "データなし",
    dayUptime: (percent) => `稼働率 ${percent}`,
    lowest: "（最も低いコンポーネント）",
    day: (day, text) => `${day}：${text}`,
    withIncidents: (text, n, titles) => `${text}、${plural(n, { other: "インシデント" })}：${titles}`,
    daysAgo: (n) => plural(n, { other: `${n} 日前` }),
    today: "今日",
    noDataYet: "稼働率のデータはまだありません",
    overDays: (percent, days) => `過去 ${days} 日間の稼働率 ${percent}`,
    since: (percent, day) => `${day} 以降の稼働率 ${percent}`,
    groupTotal: (total) => `${total}（最も低いコンポーネント）`
  },

  responseTimes: {
    hoursAgo24: "24 時間前",
    hoursAgo12: "12 時間前",
    now: "現在",
    title: (name) => `${name} の応答時間（過去 24 時間）`,
    description: (regions) =>
      `1 時間ごとの応答時間の 95 パーセンタイル。リージョンごとに 1 本の線（${regions}）。数値は後の表にあります。`,
    caption: (name) => `${name} のリージョン別応答時間、過去 24 時間（1 時間ごとの 95 パーセンタイル）`,
    region: "リージョン",
    latestHour: "直近の 1 時間",
    slowestHour: "最も遅い 1 時間",
    checks: "チェック数",
    hourFrom: (value, time) => `${value}（${time} からの 1 時間）`,
    none: "応答時間：過去 24 時間に応答したチェックはありません。",
    figcaption: "リージョン別の応答時間、1 時間ごとの 95 パーセンタイル、過去 24 時間"
  },

  badge: {
    operational: "正常稼働",
    degraded: "パフォーマンス低下",
    partial_outage: "部分的な障害",
    major_outage: "重大な障害",
    maintenance: "メンテナンス中"
  },

  feeds: {
    description: (title) => `${title} のインシデントとメンテナンス`,
    status: {
      investigating: "調査中",
      identified: "原因特定",
      monitoring: "経過観察中",
      resolved: "解決済み",
      scheduled: "予定",
      in_progress: "実施中",
      completed: "完了",
      cancelled: "中止"
    },
    incidentTitle: (title, status) => `${title}（${status}）`,
    update: (status, message) => `${status}：${message}`,
    maintenanceTitle: (title, status) => `メンテナンス：${title}（${status}）`,
    window: (from, to) => `${from} ～ ${to}`,
    withDescription: (window, description) => `${window}：${description}`,
    postmortem: "事後報告"
  },

  mail: {
    verifySubject: (name) => `${name} のステータス更新の登録を確認してください`,
    verifyAsked: (name, email) => `${email} で ${name} のステータス更新を受け取るよう申し込みがありました。`,
    verifyWithin: (hours) => `${hours} 時間以内に次のリンクを開いて確認してください：`,
    verifyLinkWithin: (link, hours) => `${hours} 時間以内に${link}。`,
    verifyLink: "登録を確認してください",
    verifyIgnore: "お心当たりがない場合は、このメールを無視してください。今後メールが届くことはありません。",
    statusPage: (url) => `ステータスページ：${url}`,
    viewStatusPage: "ステータスページを見る",
    why: (email, name) => `このメールは、${email} が ${name} のステータス更新に登録しているためお送りしています。`,
    chooseAt: (url) => `受け取るコンポーネントの選択：${url}`,
    unsubscribeAt: (url) => `登録の解除：${url}`,
    choose: "受け取るコンポーネントを選ぶ",
    unsubscribe: "登録を解除",
    incidentHeadline: {
      "incident.created": "新しいインシデント",
      "incident.updated": "インシデントの更新",
      "incident.resolved": "インシデントの解決"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "メンテナンスの予定",
      "maintenance.started": "メンテナンス開始",
      "maintenance.completed": "メンテナンス完了",
      "maintenance.reminder": "まもなくメンテナンス開始"
    },
    headline: (headline, title) => `${headline}：${title}`,
    testPrefix: "[テスト] ",
    postmortemPublished: (title) => `事後報告を公開：${title}`,
    window: (from, to) => `${from} ～ ${to}`,
    reminder: (title, starts) => `リマインダー：予定メンテナンス「${title}」は ${starts} に開始します`,
    fact: (label, value) => `${label}：${value}`,
    facts: {
      status: "ステータス",
      severity: "重大度",
      starts: "開始",
      ends: "終了",
      time: "日時"
    },
    status: {
      investigating: "調査中",
      identified: "原因特定",
      monitoring: "経過観察中",
      resolved: "解決済み",
      scheduled: "予定",
      in_progress: "実施中",
      completed: "完了",
      cancelled: "中止"
    },
    severity: {
      none: "なし",
      minor: "軽微",
      major: "重大",
      critical: "深刻"
    }
  }
}
