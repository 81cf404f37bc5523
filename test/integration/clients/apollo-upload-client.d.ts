/** The part of apollo-upload-client the client matrix uses (the package ships JSDoc, no .d.ts). */
declare module 'apollo-upload-client/UploadHttpLink.mjs' {
  import { ApolloLink } from '@apollo/client';
  export default class UploadHttpLink extends ApolloLink {
    constructor(options?: { uri?: string; headers?: Record<string, string> });
  }
}
