import { FILE_NAME, GROUP_NAME, TEMPLATE_NAME } from '../core/groups/model';

/**
 * Names the controller sends that become paths on this machine: a service's folder
 * (`services/static/<serviceName>`), the template cache (`cache/templates/<name>@<hash>`), the
 * jar looked up in the service's folder, and the service a state pull or push is for. Each is
 * checked against the pattern the controller itself validates it with, before anything touches
 * the disk, so a controller (or whoever speaks for it) cannot walk out of those folders.
 *
 * The patterns leave out `/`, `\`, NUL and every other control character, and none lets a name
 * start with a dot: `.`, `..` and hidden names are refused along with any traversal.
 */

/** `<Group>-<N>`, as `nextInstanceName` makes it and the state-sync routes accept it. */
const INSTANCE_NAME = new RegExp(`^${GROUP_NAME.slice(1, -1)}-[1-9][0-9]{0,8}$`);
const GROUP = new RegExp(GROUP_NAME);
const TEMPLATE = new RegExp(TEMPLATE_NAME);
const JAR = new RegExp(FILE_NAME);
/** A template's content hash (hex SHA-256 from the controller): letters and digits only. */
const HASH = /^[A-Za-z0-9]{1,128}$/;

/** A name from the controller that cannot be a path here; the message names the field. */
export class AgentNameError extends Error {
  override name = 'AgentNameError';
}

/** The value as the message shows it: quoted, escaped (no control character reaches a log), cut short. */
function shown(value: unknown): string {
  if (typeof value !== 'string') return typeof value;
  const text = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return text.replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function check(field: string, value: unknown, pattern: RegExp, expected: string): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  throw new AgentNameError(`refused: ${field} ${shown(value)} is not ${expected}`);
}

const SERVICE_EXPECTED = 'an instance name (<Group>-<N>: letters, digits, _ or -, at most 64, then - and a number)';
const GROUP_EXPECTED = 'a group name (letters, digits, _ or -, 1 to 64)';
const TEMPLATE_EXPECTED = 'a template name (letters, digits, _ . or -, 1 to 64, not starting with a dot)';

/** A service this agent runs, syncs or re-attaches. */
export function checkServiceName(serviceName: unknown, field = 'serviceName'): void {
  check(field, serviceName, INSTANCE_NAME, SERVICE_EXPECTED);
}

/** A template the cache stores as `<name>@<hash>`. */
export function checkTemplateRef(name: unknown, hash: unknown, field = 'templates'): void {
  check(`${field} name`, name, TEMPLATE, TEMPLATE_EXPECTED);
  check(`${field} hash`, hash, HASH, 'a content hash (letters and digits, 1 to 128)');
}

/**
 * Every name of a START_SERVICE that reaches the disk: serviceName (an instance of groupName),
 * groupName, each template's name and hash, and jarName when given. Throws AgentNameError
 * naming the first bad field.
 */
export function checkStartNames(message: { serviceName: unknown; groupName: unknown; templates: readonly { name: unknown; hash: unknown }[]; jarName?: unknown }): void {
  check('groupName', message.groupName, GROUP, GROUP_EXPECTED);
  checkServiceName(message.serviceName);
  const service = message.serviceName as string;
  const group = message.groupName as string;
  if (!service.startsWith(`${group}-`) || !/^[1-9][0-9]{0,8}$/.test(service.slice(group.length + 1))) throw new AgentNameError(`refused: serviceName ${shown(service)} is not an instance of groupName ${shown(message.groupName)}`);
  message.templates.forEach((template, i) => checkTemplateRef(template.name, template.hash, `templates[${i}]`));
  if (message.jarName !== undefined && message.jarName !== '') check('jarName', message.jarName, JAR, 'a file name (letters, digits, _ . + or -, 1 to 128, not starting with a dot)');
}

/** For entries this agent wrote itself (services.json): true when the name is an instance name. */
export function validServiceName(name: string): boolean {
  return INSTANCE_NAME.test(name);
}
