//! The kinds of resource that carry roles, and their role fields in the reference's
//! declaration order, with the names and descriptions its API shows.

/// A kind of resource whose records carry roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceKind {
    /// An organization.
    Organization,
    /// A team of an organization.
    Team,
    /// A credential (of an organization, or private to its users).
    Credential,
    /// A project.
    Project,
    /// An inventory.
    Inventory,
    /// A job template.
    JobTemplate,
}

impl ResourceKind {
    /// Every kind, in the order the API lists roles by kind.
    pub const ALL: [ResourceKind; 6] = [
        ResourceKind::Organization,
        ResourceKind::Team,
        ResourceKind::Credential,
        ResourceKind::Project,
        ResourceKind::Inventory,
        ResourceKind::JobTemplate,
    ];

    /// The kind's name in records (`summary_fields.resource_type`, the key of the owner in a
    /// role's `related`): `"job_template"`.
    pub fn type_name(self) -> &'static str {
        match self {
            ResourceKind::Organization => "organization",
            ResourceKind::Team => "team",
            ResourceKind::Credential => "credential",
            ResourceKind::Project => "project",
            ResourceKind::Inventory => "inventory",
            ResourceKind::JobTemplate => "job_template",
        }
    }

    /// The kind's display name (`resource_type_display_name`): `"Job Template"`.
    pub fn display_name(self) -> &'static str {
        match self {
            ResourceKind::Organization => "Organization",
            ResourceKind::Team => "Team",
            ResourceKind::Credential => "Credential",
            ResourceKind::Project => "Project",
            ResourceKind::Inventory => "Inventory",
            ResourceKind::JobTemplate => "Job Template",
        }
    }

    /// The kind as role descriptions name it: `"job template"`.
    pub fn described_as(self) -> &'static str {
        match self {
            ResourceKind::JobTemplate => "job template",
            other => other.type_name(),
        }
    }

    /// The kind whose [`type_name`](Self::type_name) is `name`.
    pub fn parse(name: &str) -> Option<ResourceKind> {
        ResourceKind::ALL
            .into_iter()
            .find(|kind| kind.type_name() == name)
    }

    /// The kind's role fields, in declaration order: the key order of
    /// `summary_fields.object_roles` and of `object_roles` in OPTIONS, which clients show
    /// and check names against.
    pub fn fields(self) -> &'static [RoleField] {
        use RoleField::*;
        match self {
            ResourceKind::Organization => &[
                Admin,
                Execute,
                ProjectAdmin,
                InventoryAdmin,
                CredentialAdmin,
                WorkflowAdmin,
                NotificationAdmin,
                JobTemplateAdmin,
                ExecutionEnvironmentAdmin,
                Auditor,
                Member,
                Read,
                Approval,
            ],
            ResourceKind::Team => &[Admin, Member, Read],
            ResourceKind::Credential => &[Admin, Use, Read],
            ResourceKind::Project => &[Admin, Use, Update, Read],
            ResourceKind::Inventory => &[Admin, Update, Adhoc, Use, Read],
            ResourceKind::JobTemplate => &[Admin, Execute, Read],
        }
    }

    /// Whether records of this kind carry role `field`.
    pub fn has(self, field: RoleField) -> bool {
        self.fields().contains(&field)
    }
}

/// A role field: one kind of role an object carries (`admin_role`, `use_role`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoleField {
    /// `admin_role`: manage every aspect of the object.
    Admin,
    /// `execute_role`: run it (on an organization: every job template of it).
    Execute,
    /// `project_admin_role`: manage every project of the organization.
    ProjectAdmin,
    /// `inventory_admin_role`: manage every inventory of the organization.
    InventoryAdmin,
    /// `credential_admin_role`: manage every credential of the organization.
    CredentialAdmin,
    /// `workflow_admin_role`: workflows, which ACS does not serve; grants nothing here.
    WorkflowAdmin,
    /// `notification_admin_role`: notifications, which ACS does not serve; grants nothing here.
    NotificationAdmin,
    /// `job_template_admin_role`: manage every job template of the organization.
    JobTemplateAdmin,
    /// `execution_environment_admin_role`: execution environments, which ACS does not serve;
    /// grants nothing here.
    ExecutionEnvironmentAdmin,
    /// `auditor_role`: read everything of the organization.
    Auditor,
    /// `member_role`: belong to the organization or team.
    Member,
    /// `read_role`: see the object.
    Read,
    /// `approval_role`: workflow approvals, which ACS does not serve; grants nothing here.
    Approval,
    /// `use_role`: use the object from another (a credential in a template, a project or an
    /// inventory in a template).
    Use,
    /// `update_role`: start the object's updates.
    Update,
    /// `adhoc_role`: run ad hoc commands on the inventory.
    Adhoc,
}

impl RoleField {
    /// Every field, in the organization's declaration order and then the others'.
    pub const ALL: [RoleField; 16] = [
        RoleField::Admin,
        RoleField::Execute,
        RoleField::ProjectAdmin,
        RoleField::InventoryAdmin,
        RoleField::CredentialAdmin,
        RoleField::WorkflowAdmin,
        RoleField::NotificationAdmin,
        RoleField::JobTemplateAdmin,
        RoleField::ExecutionEnvironmentAdmin,
        RoleField::Auditor,
        RoleField::Member,
        RoleField::Read,
        RoleField::Approval,
        RoleField::Use,
        RoleField::Update,
        RoleField::Adhoc,
    ];

    /// The field's name in the API: `"admin_role"`.
    pub fn name(self) -> &'static str {
        match self {
            RoleField::Admin => "admin_role",
            RoleField::Execute => "execute_role",
            RoleField::ProjectAdmin => "project_admin_role",
            RoleField::InventoryAdmin => "inventory_admin_role",
            RoleField::CredentialAdmin => "credential_admin_role",
            RoleField::WorkflowAdmin => "workflow_admin_role",
            RoleField::NotificationAdmin => "notification_admin_role",
            RoleField::JobTemplateAdmin => "job_template_admin_role",
            RoleField::ExecutionEnvironmentAdmin => "execution_environment_admin_role",
            RoleField::Auditor => "auditor_role",
            RoleField::Member => "member_role",
            RoleField::Read => "read_role",
            RoleField::Approval => "approval_role",
            RoleField::Use => "use_role",
            RoleField::Update => "update_role",
            RoleField::Adhoc => "adhoc_role",
        }
    }

    /// The field whose [`name`](Self::name) is `name`.
    pub fn parse(name: &str) -> Option<RoleField> {
        RoleField::ALL
            .into_iter()
            .find(|field| field.name() == name)
    }

    /// The role's display name: `"Job Template Admin"`.
    pub fn display_name(self) -> &'static str {
        match self {
            RoleField::Admin => "Admin",
            RoleField::Execute => "Execute",
            RoleField::ProjectAdmin => "Project Admin",
            RoleField::InventoryAdmin => "Inventory Admin",
            RoleField::CredentialAdmin => "Credential Admin",
            RoleField::WorkflowAdmin => "Workflow Admin",
            RoleField::NotificationAdmin => "Notification Admin",
            RoleField::JobTemplateAdmin => "Job Template Admin",
            RoleField::ExecutionEnvironmentAdmin => "Execution Environment Admin",
            RoleField::Auditor => "Auditor",
            RoleField::Member => "Member",
            RoleField::Read => "Read",
            RoleField::Approval => "Approve",
            RoleField::Use => "Use",
            RoleField::Update => "Update",
            RoleField::Adhoc => "Ad Hoc",
        }
    }

    /// The role's description on an object of `kind`: `"May run the job template"`.
    pub fn description(self, kind: ResourceKind) -> String {
        let what = kind.described_as();
        match self {
            RoleField::Execute if kind == ResourceKind::Organization => {
                "May run any executable resources in the organization".to_owned()
            }
            RoleField::Admin => format!("Can manage all aspects of the {what}"),
            RoleField::Execute => format!("May run the {what}"),
            RoleField::ProjectAdmin => format!("Can manage all projects of the {what}"),
            RoleField::InventoryAdmin => format!("Can manage all inventories of the {what}"),
            RoleField::CredentialAdmin => format!("Can manage all credentials of the {what}"),
            RoleField::WorkflowAdmin => format!("Can manage all workflows of the {what}"),
            RoleField::NotificationAdmin => {
                format!("Can manage all notifications of the {what}")
            }
            RoleField::JobTemplateAdmin => format!("Can manage all job templates of the {what}"),
            RoleField::ExecutionEnvironmentAdmin => {
                format!("Can manage all execution environments of the {what}")
            }
            RoleField::Auditor => format!("Can view all aspects of the {what}"),
            RoleField::Member => format!("User is a member of the {what}"),
            RoleField::Read => format!("May view settings for the {what}"),
            RoleField::Approval => "Can approve or deny a workflow approval node".to_owned(),
            RoleField::Use => format!("Can use the {what} in a job template"),
            RoleField::Update => format!("May update the {what}"),
            RoleField::Adhoc => format!("May run ad hoc commands on the {what}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_the_reference_declaration_order() {
        let names = |kind: ResourceKind| -> Vec<&str> {
            kind.fields().iter().map(|field| field.name()).collect()
        };
        assert_eq!(
            names(ResourceKind::Project).join(", "),
            "admin_role, use_role, update_role, read_role"
        );
        assert_eq!(
            names(ResourceKind::Inventory),
            [
                "admin_role",
                "update_role",
                "adhoc_role",
                "use_role",
                "read_role"
            ]
        );
        assert_eq!(names(ResourceKind::Organization).len(), 13);
        assert_eq!(names(ResourceKind::Organization)[12], "approval_role");
        assert_eq!(
            names(ResourceKind::JobTemplate),
            ["admin_role", "execute_role", "read_role"]
        );
    }

    #[test]
    fn names_parse_back() {
        for field in RoleField::ALL {
            assert_eq!(RoleField::parse(field.name()), Some(field));
        }
        for kind in ResourceKind::ALL {
            assert_eq!(ResourceKind::parse(kind.type_name()), Some(kind));
        }
        assert_eq!(RoleField::parse("admin"), None);
    }

    #[test]
    fn descriptions_as_the_reference_words_them() {
        #[rustfmt::skip]
        let rows = [
            (RoleField::Admin, ResourceKind::Project, "Can manage all aspects of the project"),
            (RoleField::Execute, ResourceKind::JobTemplate, "May run the job template"),
            (RoleField::Use, ResourceKind::Credential, "Can use the credential in a job template"),
            (RoleField::Read, ResourceKind::Inventory, "May view settings for the inventory"),
            (RoleField::Member, ResourceKind::Team, "User is a member of the team"),
            (RoleField::Execute, ResourceKind::Organization,
             "May run any executable resources in the organization"),
        ];
        for (field, kind, text) in rows {
            assert_eq!(field.description(kind), text);
        }
        assert_eq!(RoleField::Adhoc.display_name(), "Ad Hoc");
        assert_eq!(ResourceKind::JobTemplate.display_name(), "Job Template");
    }
}
