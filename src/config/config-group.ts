/**
 * A group of variables as docs/configuration.md shows it: a title, one sentence on when to read it,
 * and the variables' schemas (each `.describe()` is the variable's line in the reference). The
 * groups' order is the document's: the ones a deployment sets first, then the references.
 */
import type { ZodRawShape } from 'zod';

export interface ConfigGroup<Shape extends ZodRawShape = ZodRawShape> {
  readonly title: string;
  readonly intro: string;
  readonly variables: Shape;
}

export const configGroup = <Shape extends ZodRawShape>(
  title: string,
  intro: string,
  variables: Shape,
): ConfigGroup<Shape> => ({ title, intro, variables });
