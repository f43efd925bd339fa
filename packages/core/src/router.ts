import { organisationsRouter } from "./organisations/router";
import { router } from "./trpc";

export const appRouter = router({
  organisations: organisationsRouter,
});

export type AppRouter = typeof appRouter;
