DROP INDEX projects_local_path;
