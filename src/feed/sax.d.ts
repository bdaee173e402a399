/** The part of sax (isaacs/sax-js, a streaming XML parser without types of its own) the XML feed uses. */
declare module "sax" {
  export interface Tag {
    name: string;
    attributes: Record<string, string>;
    isSelfClosing: boolean;
  }

  export interface SAXParser {
    /** 0-based line, column and character offset of the parser in the text written so far. */
    line: number;
    column: number;
    position: number;
    /** Offset just after the `<` of the tag being read. */
    startTagPosition: number;
    error: Error | null;
    onopentag: (tag: Tag) => void;
    onclosetag: (name: string) => void;
    ontext: (text: string) => void;
    oncdata: (text: string) => void;
    onerror: (error: Error) => void;
    write(text: string): SAXParser;
    close(): SAXParser;
    resume(): SAXParser;
  }

  /** The module is CommonJS: its exports arrive as the default import. */
  const sax: {
    parser(strict: boolean, options?: { trim?: boolean; normalize?: boolean; position?: boolean }): SAXParser;
  };
  export default sax;
}
