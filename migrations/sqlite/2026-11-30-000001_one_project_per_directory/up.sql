-- A project directory belongs to one project: an admin of one organization could otherwise
-- create a project on another organization's directory and read, run and install into it.
-- Projects that already share a directory leave it to the oldest of them (lowest id); each of
-- the others loses it (local_path '' runs nothing until an admin sets a new directory), and
-- the activity stream records each such change, so an administrator can see what happened.
INSERT INTO activity_stream (timestamp, actor_id, operation, object1, object1_id, changes, summary)
SELECT strftime('%Y-%m-%d %H:%M:%f', 'now'), NULL, 'update', 'project', p.id,
       json_object('local_path', json_array(p.local_path, '')),
       json_object('project', json_array(json_object('id', p.id, 'name', p.name)))
FROM projects p
WHERE p.local_path <> ''
  AND EXISTS (SELECT 1 FROM projects q WHERE q.local_path = p.local_path AND q.id < p.id);

UPDATE projects SET local_path = ''
WHERE local_path <> ''
  AND EXISTS (SELECT 1 FROM projects q WHERE q.local_path = projects.local_path AND q.id < projects.id);

CREATE UNIQUE INDEX projects_local_path ON projects (local_path) WHERE local_path <> '';
