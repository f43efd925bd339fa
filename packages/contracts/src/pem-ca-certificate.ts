import { z } from "zod";
import { isPemCaCertificate } from "./server-checks";

/** One PEM X.509 CA certificate, fit to be a trust anchor (the server's full check once installed). */
export const zPemCaCertificate = z
  .string()
  .max(20_000)
  .refine(isPemCaCertificate, "Give one PEM-encoded X.509 CA certificate.");
