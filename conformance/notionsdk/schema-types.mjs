// TYPES are the @notionhq/client response types the suite validates
// against: the endpoint answers and the full objects inside them.
// gen-schemas.mjs generates a schema for each; sdk.mjs refuses schemas
// generated from another list. Adding a type here makes
// scripts/install-npm.sh regenerate them.
export const TYPES = [
  "CreatePageResponse",
  "GetPageResponse",
  "UpdatePageResponse",
  "AppendBlockChildrenResponse",
  "ListBlockChildrenResponse",
  "GetBlockResponse",
  "UpdateBlockResponse",
  "DeleteBlockResponse",
  "CreateDatabaseResponse",
  "GetDatabaseResponse",
  "UpdateDatabaseResponse",
  "QueryDatabaseResponse",
  "CreateFileUploadResponse",
  "SendFileUploadResponse",
  "CompleteFileUploadResponse",
  "GetFileUploadResponse",
  "ListFileUploadsResponse",
  "GetSelfResponse",
  "SearchResponse",
  "PageObjectResponse",
  "BlockObjectResponse",
  "DatabaseObjectResponse",
  "FileUploadObjectResponse",
];
