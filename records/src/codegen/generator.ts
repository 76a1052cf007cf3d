/** State shared while one layout's code is generated: fresh names, the constants the code closes over. */
import type { Node } from '../layout.ts';
import { fieldSpec, type FieldSpec } from '../specs.ts';
import type { PlatformProfile } from '../types.ts';
import type { Code } from './code.ts';

export class Generator {
  /** Values the generated code reads as `K[i]`: field specs, key sets, lookup maps. */
  readonly constants: unknown[] = [];
  /** Declarations before `encode` and `decode`: constants by name, then the per-element functions. */
  readonly declarations: Code = [];
  readonly functions: Code = [];
  private ids = 0;
  private readonly specOf = new Map<Node, string>();
  private readonly profile: PlatformProfile;

  constructor(profile: PlatformProfile) {
    this.profile = profile;
  }

  /** A fresh variable name. */
  id(prefix: string): string {
    return `${prefix}${this.ids++}`;
  }

  /** A name for `value`, declared once as `const name = K[i]; // about`. */
  constant(prefix: string, value: unknown, about: string): string {
    this.constants.push(value);
    const name = this.id(prefix);
    const comment = about.replace(/[\r\n\u2028\u2029]/g, ' ');
    this.declarations.push(`const ${name} = K[${this.constants.length - 1}]; // ${comment}`);
    return name;
  }

  /** The spec of elementary item `n` and the name the code knows it by. */
  field(n: Node): { name: string; f: FieldSpec } {
    const f = fieldSpec(n, this.profile);
    let name = this.specOf.get(n);
    if (name === undefined) {
      name = this.constant('spec', f.spec, `${n.name}: ${f.type} ${n.picture?.normalized ?? ''}`.trimEnd());
      this.specOf.set(n, name);
    }
    return { name, f };
  }
}
