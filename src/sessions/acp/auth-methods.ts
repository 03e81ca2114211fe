import type * as acp from "@agentclientprotocol/sdk";

/** An `env_var` sign-in (newer ACP): it names the variables that must hold the credentials. */
interface EnvVarAuthMethod {
  id: string;
  type: "env_var";
  vars: Array<{ name: string }>;
}

function isEnvVarMethod(method: acp.AuthMethod): method is acp.AuthMethod & EnvVarAuthMethod {
  const candidate = method as Partial<EnvVarAuthMethod>;
  return candidate.type === "env_var" && Array.isArray(candidate.vars);
}

/**
 * The `authenticate` method to send, if any: an env_var method whose variables are all set in the
 * agent's environment, else the harness's own choice for methods that do not say what they need.
 * Methods run in a terminal are never sent (ACP forbids it), nor is anything when nothing fits: the
 * agent then says itself what is missing.
 */
export function chooseAuthMethod(
  offered: acp.AuthMethod[],
  env: Record<string, string | undefined>,
  harnessChoice: (offeredIds: string[]) => string | undefined,
): string | undefined {
  const envMethod = offered.find((method) => isEnvVarMethod(method) && method.vars.every((variable) => Boolean(env[variable.name])));
  if (envMethod) return envMethod.id;
  const sendable = offered.filter((method) => (method as { type?: string }).type !== "terminal").map((method) => method.id);
  const chosen = harnessChoice(sendable);
  return chosen && sendable.includes(chosen) ? chosen : undefined;
}
