export {
  createWebhookWorker,
  DEFAULT_WORKER_OPTIONS,
  type WebhookWorker,
  type WebhookWorkerOptions,
  type WorkerDeps,
  type WorkerLogger,
} from "./webhook-worker";
