FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: the build needs none of the others, and the development one that
# pins Node for npm scripts (the `node` package) is the image's own Node here.
RUN npm install --no-audit --no-fund --omit=dev
COPY . .
# What `npm start` runs, built once here: plain node then starts it (no npm process beside it).
RUN npm run build:server
ENV NODE_ENV=production
# The service runs as the image's unprivileged `node` user. The code stays root's and read-only
# to it; the only place it writes is DATA_DIR (./data, the embedded database), created here for it.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# V8 collects garbage on the main thread alone, with a young generation of up to 3 x 32 MB: on the
# fleet's work that took a quarter off the service's CPU (docs/benchmarks.md, "Fleet end to end").
CMD ["node", "--single-threaded-gc", "--max-semi-space-size=32", "dist/server/main.mjs"]
