-- Mneme schema, version 11: an index on the hash of each memory's content, so that an import
-- finds the memories already stored with the same content (and then scope, project and type)
-- without reading every row: re-importing an export stores nothing twice.
create index if not exists memories_content_md5 on memories (md5(content));
