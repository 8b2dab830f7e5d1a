/** The Simplified Chinese catalogue (src/i18n/messages/en.ts defines the keys). Chinese has one plural form. */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("zh-CN")

export const zhCN: Messages = {
  languageName: "简体中文",
  listSeparator: "、",

  status: {
    component: {
      operational: "正常运行",
      degraded: "性能下降",
      partial_outage: "部分中断",
      major_outage: "严重中断",
      maintenance: "维护中"
    },
    overall: {
      operational: "所有系统运行正常",
      degraded: "性能下降",
      partial_outage: "部分服务中断",
      major_outage: "严重服务中断",
      maintenance: "正在维护"
    },
    incident: {
      investigating: "调查中",
      identified: "已查明原因",
      monitoring: "观察中",
      resolved: "已解决"
    },
    maintenance: {
      scheduled: "已计划",
      in_progress: "进行中",
      completed: "已完成",
      cancelled: "已取消"
    },
    severity: {
      none: "无影响",
      minor: "轻微影响",
      major: "重大影响",
      critical: "严重影响"
    }
  },

  layout: {
    statusTitle: (name) => `${name} 状态`,
    pageTitle: (title, name) => `${title} · ${name} 状态`,
    rssTitle: (name) => `${name} 状态（RSS）`,
    atomTitle: (name) => `${name} 状态（Atom）`,
    skip: "跳到正文",
    brandSuffix: " 状态",
    followUpdates: "关注更新：",
    rss: "RSS",
    atom: "Atom",
    history: "事件历史",
    jsonApi: "JSON API",
    languages: "语言",
    links: "链接"
  },

  page: {
    backToStatus: "返回当前状态",
    activeIncidents: "进行中的事件",
    maintenance: "维护",
    components: "组件",
    noComponents: "尚未列出任何组件。",
    recentHistory: "近期历史",
    noRecentIncidents: "近期没有报告任何事件。",
    allPastIncidents: "所有过往事件",
    updated: (time) => `更新于 ${time}`,
    posted: (time) => `发布于 ${time}`,
    window: (from, to) => `${from} 至 ${to}`,
    componentCount: (n) => plural(n, { other: `${n} 个组件` }),
    ofGroup: (group) => `（${group}）`,
    affects: (names) => `影响：${names}`,
    opened: (time) => `开始于 ${time}`,
    resolved: (time) => `解决于 ${time}`,
    updates: "更新",
    postmortem: "事后分析",
    published: (time) => `发布于 ${time}`,
    plannedMaintenance: "计划维护",
    fromTo: (from, to) => `${from} 至 ${to}`,
    details: "详情",
    historyTitle: "事件历史",
    noIncidents: "尚未报告任何事件。",
    historyPages: "历史页面",
    newer: "较新的事件",
    older: "较早的事件",
    pageOf: (page, pages) => `第 ${page} 页，共 ${pages} 页`
  },

  subscribe: {
    title: "通过电子邮件获取更新",
    email: "电子邮件地址",
    components: "组件",
    tickNone: "不勾选任何项即可接收所有组件的更新。",
    allOf: (group) => `${group} 全部`,
    submit: "订阅",
    feeds: (rss, atom) => `我们会先发送一个确认链接。您也可以关注 ${rss} 或 ${atom} 订阅源。`
  },

  preferences: {
    title: "您的订阅",
    sentTo: (email) => `事件和维护更新将发送至 ${email}。`,
    noneListed:
      "您选择的组件均已不再列出：您只会收到未指明组件的更新。请重新勾选，或不勾选任何项后保存以接收所有更新。",
    noComponents: "没有列出任何组件：您会收到所有更新。",
    choose: "选择您要接收的更新",
    unnamedReachAll: "未指明组件的更新会发送给所有订阅者。",
    save: "保存选择",
    stop: "停止所有更新",
    unsubscribe: (email) => `退订 ${email}`
  },

  forms: {
    notFound: "未找到",
    unavailable: "状态页正在启动或无法连接数据库。请稍后再试。",
    notSentTitle: "未发送",
    notSent: "此表单只能从本状态页发送。",
    invalidEmail: "请输入电子邮件地址，例如 name@example.com。",
    componentsRefused: "请从列出的组件中选择：其中一个已不再提供。",
    tooManyComponents: (max) => `最多选择 ${max} 个组件，或不选以接收所有组件的更新。`,
    tooManyRequests: "订阅请求过多。请稍后再试。",
    subscribeAccepted: "谢谢。如果此地址尚未订阅，确认链接已发送至该地址。",
    linkNotValidTitle: "链接无效",
    confirmationNotValid: "此确认链接无法识别、已被使用或已过期。请重新订阅以获取新链接。",
    confirmTitle: "确认您的订阅",
    confirm: "确认后即可通过电子邮件接收事件和维护更新。",
    confirmButton: "确认订阅",
    confirmedTitle: "订阅已确认",
    confirmed: (email) => `${email} 今后将收到事件和维护更新。`,
    linkNotValid: "没有与此链接匹配的订阅：它可能已经结束。请使用最新邮件中的链接。",
    linkIncomplete: "此链接不完整。请使用最新邮件中的链接。",
    savedEvery: "已保存：您将收到所有组件的更新。",
    savedSome: (names) => `已保存：您将收到 ${names} 的更新，以及未指明组件的更新。`,
    unsubscribedTitle: "已退订",
    unsubscribed: (email) => `${email} 将不再收到更新。`,
    unsubscribeTitle: "退订",
    unsubscribeAsk: (email) => `停止向 ${email} 发送状态更新？`,
    unsubscribeButton: (email) => `退订 ${email}`,
    unsubscribeLinkIncomplete: "此退订链接不完整。请使用最新邮件中的链接。",
    notUnsubscribedTitle: "未能退订",
    notUnsubscribed: "没有与此链接匹配的订阅：它可能已经结束。"
  },

  access: {
    title: "需要密码",
    intro: "此状态页不公开。请输入您获得的密码以查看。",
    password: "密码",
    submit: "打开状态页",
    wrongPassword: "密码不正确。请检查后重试。",
    tooManyTries: "尝试次数过多。请等待几分钟后重试。"
  },

  uptime: {
    barLabel: (name) => `${name} 的每日可用性，从旧到新`,
    groupBarLabel: (name) => `${name} 的每日可用性，取其组件每天的最低值，从旧到新`,
    beforeComponent: "此组件创建之前",
    beforeComponents: "其组件创建之前",
    noData: "无数据",
    dayUptime: (percent) => `可用性 ${percent}`,
    lowest: "（其最低的组件）",
    day: (day, text) => `${day}：${text}`,
    withIncidents: (text, n, titles) => `${text}；${plural(n, { other: "事件" })}：${titles}`,
    daysAgo: (n) => plural(n, { other: `${n} 天前` }),
    today: "今天",
    noDataYet: "暂无可用性数据",
    overDays: (percent, days) => `${days} 天内可用性 ${percent}`,
    since: (percent, day) => `自 ${day} 起可用性 ${percent}`,
    groupTotal: (total) => `${total}（其最低的组件）`
  },

  responseTimes: {
    hoursAgo24: "24 小时前",
    hoursAgo12: "12 小时前",
    now: "现在",
    title: (name) => `${name} 的响应时间，过去 24 小时`,
    description: (regions) => `每小时响应时间的第 95 百分位数，每个区域一条线（${regions}）。具体数值见后面的表格。`,
    caption: (name) => `${name} 各区域的响应时间，过去 24 小时（每小时第 95 百分位数）`,
    region: "区域",
    latestHour: "最近一小时",
    slowestHour: "最慢的一小时",
    checks: "检查次数",
    hourFrom: (value, time) => `${value}（自 ${time} 起的一小时）`,
    none: "响应时间：过去 24 小时内没有检查得到响应。",
    figcaption: "各区域的响应时间，每小时第 95 百分位数，过去 24 小时"
  },

  badge: {
    operational: "正常运行",
    degraded: "性能下降",
    partial_outage: "部分中断",
    major_outage: "严重中断",
    maintenance: "维护中"
  },

  feeds: {
    description: (title) => `${title} 的事件和维护`,
    status: {
      investigating: "调查中",
      identified: "已查明原因",
      monitoring: "观察中",
      resolved: "已解决",
      scheduled: "已计划",
      in_progress: "进行中",
      completed: "已完成",
      cancelled: "已取消"
    },
    incidentTitle: (title, status) => `${title}（${status}）`,
    update: (status, message) => `${status}：${message}`,
    maintenanceTitle: (title, status) => `维护：${title}（${status}）`,
    window: (from, to) => `${from} 至 ${to}`,
    withDescription: (window, description) => `${window}：${description}`,
    postmortem: "事后分析"
  },

  mail: {
    verifySubject: (name) => `请确认订阅 ${name} 的状态更新`,
    verifyAsked: (name, email) => `有人（希望是您）申请以 ${email} 接收 ${name} 的状态更新。`,
    verifyWithin: (hours) => `请在 ${hours} 小时内打开以下链接进行确认：`,
    verifyLinkWithin: (link, hours) => `请在 ${hours} 小时内${link}。`,
    verifyLink: "确认您的订阅",
    verifyIgnore: "如果这不是您本人的申请，请忽略此邮件：我们不会向您发送任何内容。",
    statusPage: (url) => `状态页：${url}`,
    viewStatusPage: "查看状态页",
    why: (email, name) => `您收到此邮件，是因为 ${email} 订阅了 ${name} 的状态更新。`,
    chooseAt: (url) => `选择您要接收更新的组件：${url}`,
    unsubscribeAt: (url) => `退订：${url}`,
    choose: "选择您要接收更新的组件",
    unsubscribe: "退订",
    incidentHeadline: {
      "incident.created": "新事件",
      "incident.updated": "事件已更新",
      "incident.resolved": "事件已解决"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "维护已计划",
      "maintenance.started": "维护已开始",
      "maintenance.completed": "维护已完成",
      "maintenance.reminder": "维护即将开始"
    },
    headline: (headline, title) => `${headline}：${title}`,
    testPrefix: "[测试] ",
    postmortemPublished: (title) => `事后分析已发布：${title}`,
    window: (from, to) => `${from} 至 ${to}`,
    reminder: (title, starts) => `提醒：计划维护“${title}”将于 ${starts} 开始`,
    fact: (label, value) => `${label}：${value}`,
    facts: {
      status: "状态",
      severity: "严重程度",
      starts: "开始",
      ends: "结束",
      time: "时间"
    },
    status: {
      investigating: "调查中",
      identified: "已查明原因",
      monitoring: "观察中",
      resolved: "已解决",
      scheduled: "已计划",
      in_progress: "进行中",
      completed: "已完成",
      cancelled: "已取消"
    },
    severity: {
      none: "无",
      minor: "轻微",
      major: "重大",
      critical: "严重"
    }
  }
}
