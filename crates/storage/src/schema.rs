//! Diesel table definitions shared by both backends (written to match `migrations/`).

diesel::table! {
    users (id) {
        id -> BigInt,
        username -> Text,
        password -> Text,
        first_name -> Text,
        last_name -> Text,
        email -> Text,
        is_superuser -> Bool,
        is_system_auditor -> Bool,
        is_active -> Bool,
        external_account -> Nullable<Text>,
        last_login -> Nullable<Timestamp>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    organizations (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    organization_roles (organization_id, user_id, role) {
        organization_id -> BigInt,
        user_id -> BigInt,
        role -> Text,
    }
}

diesel::table! {
    sessions (id) {
        id -> BigInt,
        digest -> Binary,
        user_id -> BigInt,
        created -> Timestamp,
        expires -> Timestamp,
    }
}

diesel::table! {
    settings (key) {
        key -> Text,
        value -> Text,
        modified -> Timestamp,
    }
}

diesel::table! {
    revisions (id) {
        id -> Integer,
        settings -> BigInt,
        users -> BigInt,
        sessions -> BigInt,
        login_failures -> BigInt,
        tokens -> BigInt,
        applications -> BigInt,
    }
}

diesel::table! {
    /// A view: the counters of `revisions` summed over its rows (slots on PostgreSQL).
    revision_totals (id) {
        id -> Integer,
        settings -> BigInt,
        users -> BigInt,
        sessions -> BigInt,
        login_failures -> BigInt,
        tokens -> BigInt,
        applications -> BigInt,
    }
}

diesel::table! {
    login_failures (key) {
        key -> Text,
        window_start -> Timestamp,
        failures -> Integer,
    }
}

diesel::table! {
    applications (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        client_id -> Text,
        client_secret_digest -> Binary,
        client_type -> Text,
        redirect_uris -> Text,
        authorization_grant_type -> Text,
        skip_authorization -> Bool,
        organization_id -> BigInt,
        user_id -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    access_tokens (id) {
        id -> BigInt,
        digest -> Binary,
        user_id -> BigInt,
        application_id -> Nullable<BigInt>,
        description -> Text,
        scope -> Text,
        expires -> Timestamp,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> BigInt,
        digest -> Binary,
        user_id -> BigInt,
        application_id -> BigInt,
        access_token_id -> Nullable<BigInt>,
        scope -> Text,
        created -> Timestamp,
        revoked -> Nullable<Timestamp>,
        chain_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    authorization_codes (id) {
        id -> BigInt,
        digest -> Binary,
        application_id -> BigInt,
        user_id -> BigInt,
        redirect_uri -> Text,
        redirect_uri_sent -> Bool,
        scope -> Text,
        code_challenge -> Nullable<Text>,
        created -> Timestamp,
        expires -> Timestamp,
    }
}

diesel::table! {
    activity_stream (id) {
        id -> BigInt,
        timestamp -> Timestamp,
        actor_id -> Nullable<BigInt>,
        operation -> Text,
        object1 -> Text,
        object1_id -> BigInt,
        object2 -> Text,
        object2_id -> Nullable<BigInt>,
        changes -> Text,
        summary -> Text,
    }
}

diesel::table! {
    credential_types (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        kind -> Text,
        namespace -> Nullable<Text>,
        managed -> Bool,
        inputs -> Text,
        injectors -> Text,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    credentials (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        credential_type_id -> BigInt,
        organization_id -> Nullable<BigInt>,
        user_id -> Nullable<BigInt>,
        inputs -> Text,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    organization_source_credentials (organization_id, credential_id) {
        organization_id -> BigInt,
        credential_id -> BigInt,
        position -> Integer,
    }
}

diesel::table! {
    projects (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        organization_id -> BigInt,
        scm_type -> Text,
        local_path -> Text,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
        scm_url -> Text,
        scm_branch -> Text,
        scm_refspec -> Text,
        scm_clean -> Bool,
        scm_delete_on_update -> Bool,
        scm_revision -> Text,
        credential_id -> Nullable<BigInt>,
        scm_update_on_launch -> Bool,
        scm_update_cache_timeout -> Integer,
        scm_track_submodules -> Bool,
        allow_override -> Bool,
    }
}

diesel::table! {
    inventories (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        organization_id -> BigInt,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    inventory_sources (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        inventory_id -> BigInt,
        source -> Text,
        source_project_id -> Nullable<BigInt>,
        source_path -> Text,
        credential_id -> Nullable<BigInt>,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    hosts (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        inventory_id -> BigInt,
        variables -> Text,
        inventory_source_id -> Nullable<BigInt>,
        enabled -> Bool,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    inventory_groups (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        inventory_id -> BigInt,
        variables -> Text,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    inventory_group_hosts (group_id, host_id) {
        group_id -> BigInt,
        host_id -> BigInt,
    }
}

diesel::table! {
    inventory_group_children (parent_id, child_id) {
        parent_id -> BigInt,
        child_id -> BigInt,
    }
}

diesel::table! {
    job_templates (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        organization_id -> BigInt,
        inventory_id -> Nullable<BigInt>,
        project_id -> Nullable<BigInt>,
        playbook -> Text,
        extra_vars -> Text,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
        job_limit -> Text,
        ask_limit_on_launch -> Bool,
        ask_inventory_on_launch -> Bool,
        ask_credential_on_launch -> Bool,
        ask_variables_on_launch -> Bool,
        job_type -> Text,
        job_tags -> Text,
        skip_tags -> Text,
        verbosity -> Integer,
        diff_mode -> Bool,
        forks -> Integer,
        timeout -> Integer,
        ask_job_type_on_launch -> Bool,
        ask_tags_on_launch -> Bool,
        ask_skip_tags_on_launch -> Bool,
        ask_verbosity_on_launch -> Bool,
        ask_diff_mode_on_launch -> Bool,
        ask_forks_on_launch -> Bool,
        ask_timeout_on_launch -> Bool,
        scm_branch -> Text,
        ask_scm_branch_on_launch -> Bool,
    }
}

diesel::table! {
    job_template_credentials (job_template_id, credential_id) {
        job_template_id -> BigInt,
        credential_id -> BigInt,
    }
}

diesel::table! {
    unified_jobs (id) {
        id -> BigInt,
        kind -> Text,
        name -> Text,
        status -> Text,
        job_explanation -> Text,
        organization_id -> Nullable<BigInt>,
        job_template_id -> Nullable<BigInt>,
        project_id -> Nullable<BigInt>,
        inventory_id -> Nullable<BigInt>,
        inventory_source_id -> Nullable<BigInt>,
        playbook -> Text,
        job_limit -> Text,
        extra_vars -> Text,
        job_args -> Text,
        job_cwd -> Text,
        job_env -> Text,
        result_code -> Nullable<Integer>,
        cancel_requested -> Bool,
        node -> Text,
        launched_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
        started -> Nullable<Timestamp>,
        finished -> Nullable<Timestamp>,
        job_type -> Text,
        job_tags -> Text,
        skip_tags -> Text,
        verbosity -> Integer,
        diff_mode -> Bool,
        forks -> Integer,
        timeout -> Integer,
        project_update_id -> Nullable<BigInt>,
        scm_branch -> Text,
    }
}

diesel::table! {
    unified_job_credentials (unified_job_id, credential_id) {
        unified_job_id -> BigInt,
        credential_id -> BigInt,
    }
}

diesel::table! {
    instances (node) {
        node -> Text,
        version -> Text,
        capacity -> BigInt,
        started -> Timestamp,
        heartbeat -> Timestamp,
    }
}

diesel::table! {
    external_identities (id) {
        id -> BigInt,
        user_id -> BigInt,
        source -> Text,
        issuer -> Text,
        subject -> Text,
        created -> Timestamp,
    }
}

diesel::table! {
    sso_states (id) {
        id -> BigInt,
        digest -> Binary,
        provider -> Text,
        nonce -> Text,
        pkce_verifier -> Text,
        next -> Text,
        expires -> Timestamp,
    }
}

diesel::joinable!(organization_roles -> organizations (organization_id));
diesel::joinable!(organization_roles -> users (user_id));
diesel::joinable!(role_members -> roles (role_id));
diesel::joinable!(role_members -> users (user_id));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(applications -> organizations (organization_id));
diesel::joinable!(access_tokens -> users (user_id));
diesel::joinable!(access_tokens -> applications (application_id));
diesel::joinable!(refresh_tokens -> access_tokens (access_token_id));
diesel::joinable!(authorization_codes -> applications (application_id));
diesel::joinable!(authorization_codes -> users (user_id));
diesel::joinable!(activity_stream -> users (actor_id));
diesel::joinable!(credentials -> credential_types (credential_type_id));
diesel::joinable!(organization_source_credentials -> credentials (credential_id));
diesel::joinable!(organization_source_credentials -> organizations (organization_id));
diesel::joinable!(hosts -> inventories (inventory_id));
diesel::joinable!(inventory_groups -> inventories (inventory_id));
diesel::joinable!(inventory_group_hosts -> inventory_groups (group_id));
diesel::joinable!(inventory_group_hosts -> hosts (host_id));
diesel::joinable!(external_identities -> users (user_id));
diesel::joinable!(inventory_sources -> inventories (inventory_id));
diesel::joinable!(job_template_credentials -> job_templates (job_template_id));
diesel::joinable!(job_template_credentials -> credentials (credential_id));
diesel::table! {
    unified_job_lines (unified_job_id, line) {
        unified_job_id -> BigInt,
        line -> Integer,
        text -> Text,
    }
}

diesel::joinable!(unified_job_credentials -> unified_jobs (unified_job_id));
diesel::joinable!(unified_job_lines -> unified_jobs (unified_job_id));
diesel::joinable!(unified_job_credentials -> credentials (credential_id));

diesel::table! {
    roles (id) {
        id -> BigInt,
        kind -> Text,
        object_id -> Nullable<BigInt>,
        field -> Text,
    }
}

diesel::table! {
    role_members (role_id, user_id) {
        role_id -> BigInt,
        user_id -> BigInt,
    }
}

diesel::table! {
    retired_secret_keys (key_id) {
        key_id -> Text,
        retired -> Timestamp,
    }
}

diesel::table! {
    teams (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        organization_id -> BigInt,
        created_by -> Nullable<BigInt>,
        modified_by -> Nullable<BigInt>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    team_roles (role_id, team_id) {
        role_id -> BigInt,
        team_id -> BigInt,
    }
}

diesel::joinable!(teams -> organizations (organization_id));
diesel::joinable!(team_roles -> roles (role_id));
diesel::joinable!(team_roles -> teams (team_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    organizations,
    organization_roles,
    sessions,
    settings,
    revisions,
    login_failures,
    applications,
    access_tokens,
    refresh_tokens,
    authorization_codes,
    activity_stream,
    credential_types,
    credentials,
    organization_source_credentials,
    projects,
    inventories,
    inventory_sources,
    hosts,
    inventory_groups,
    inventory_group_hosts,
    inventory_group_children,
    job_templates,
    job_template_credentials,
    unified_jobs,
    unified_job_credentials,
    unified_job_lines,
    external_identities,
    sso_states,
    retired_secret_keys,
    roles,
    role_members,
    teams,
    team_roles,
);
